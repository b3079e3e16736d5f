import { Effect } from "effect"

/** Runs a callback once the current turn of the event loop has handled its I/O (setImmediate). */
export type Defer = (run: () => void) => void

const afterIo: Defer = (run) => void setImmediate(run)

/**
 * One `read()` per turn of the event loop, shared by every caller that asked before it ran.
 *
 * The first caller of a turn schedules the read for after the turn's I/O callbacks (`defer`); every
 * caller until then waits for it. So each caller gets a value read *after* it asked, exactly as if it
 * had read alone, while requests handled in the same turn pay for one read between them.
 */
export const perTurn = <A>(read: () => A, defer: Defer = afterIo): Effect.Effect<A> => {
  let waiting: Array<(a: A) => void> | undefined
  const settle = () => {
    const callers = waiting ?? []
    // Cleared before the read: a caller arriving from here on waits for the next one.
    waiting = undefined
    const value = read()
    for (const resume of callers) resume(value)
  }
  return Effect.async<A>((resume) => {
    if (waiting === undefined) {
      waiting = []
      defer(settle)
    }
    waiting.push((value) => resume(Effect.succeed(value)))
  })
}

/** Values computed at most once, on first use: what one turn saw, for everyone who shares the turn. */
export interface Seen {
  readonly once: <K extends object, A>(key: K, compute: (key: K) => A) => A
}

/** A fresh, empty `Seen`: the reads of one turn (computed lazily, so never before the turn began). */
export const seen = (): Seen => {
  const values = new Map<object, unknown>()
  return {
    once: (key, compute) => {
      if (values.has(key)) return values.get(key) as ReturnType<typeof compute>
      const value = compute(key)
      values.set(key, value)
      return value
    }
  }
}
