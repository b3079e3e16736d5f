/** Request lines, gathered and written together: one write to stderr per batch, not one per request. */
export interface LineBatch {
  /** Queues one complete line (with its newline); it is written within `delayMs`. */
  readonly line: (text: string) => void
  /** Writes whatever is queued now (at shutdown, before the last line). */
  readonly flush: () => void
}

/** A batch flushed `delayMs` after its first line, or at once past `maxChars`. */
export const lineBatch = (write: (text: string) => void, delayMs = 10, maxChars = 64 * 1024): LineBatch => {
  let queued: Array<string> = []
  let chars = 0
  let timer: ReturnType<typeof setTimeout> | undefined
  const flush = () => {
    if (timer !== undefined) clearTimeout(timer)
    timer = undefined
    if (queued.length === 0) return
    const text = queued.join("")
    queued = []
    chars = 0
    write(text)
  }
  return {
    line: (text) => {
      queued.push(text)
      chars += text.length
      if (chars >= maxChars) return flush()
      // Unref'd: a pending batch never keeps the process alive; shutdown flushes it.
      if (timer === undefined) timer = setTimeout(flush, delayMs).unref()
    },
    flush
  }
}
