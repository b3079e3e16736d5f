import { Chunk, Console, Effect, Sink, Stream } from "effect"
import { echo } from "../platform/echo"
import { topLevelMemberToken } from "../platform/jsonMemberToken"
import { INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, type JsonRpcError, PARSE_ERROR, screen } from "./jsonRpc"

/**
 * A validating framer in front of `@effect/ai`'s stdio server (pinned in package.json). Upstream,
 * `RpcSerialization.ndJsonRpc` JSON.parses each line inside the stdin fiber: one bad line throws,
 * the fiber logs a stack and the server never reads again; it also turns every id into a BigInt
 * (a string or 0.5 is lost) and answers refused payloads with code 0. So every line is screened
 * here; the library only sees requests it can serve, each under an integer id of ours, and each
 * answer gets back the client's id exactly as sent: a number's own text, which JSON.parse loses.
 */

/** Longest line read; a longer one is refused unread (-32600), since its id cannot be known without parsing it. */
export const MAX_LINE_CHARS = 8 * 1024 * 1024

type Line = { readonly _tag: "Line"; readonly text: string } | { readonly _tag: "Oversize" }

/** Splits text into lines without holding more than MAX_LINE_CHARS of any one line. */
const makeSplitter = (maxLine: number) => {
  let buffer = ""
  let discarding = false
  return (text: string): Array<Line> => {
    const lines: Array<Line> = []
    let start = 0
    for (let nl = text.indexOf("\n"); nl !== -1; nl = text.indexOf("\n", start)) {
      if (discarding) discarding = false
      else if (buffer.length + nl - start > maxLine) lines.push({ _tag: "Oversize" })
      else lines.push({ _tag: "Line", text: buffer + text.slice(start, nl) })
      buffer = ""
      start = nl + 1
    }
    if (!discarding) {
      buffer += text.slice(start)
      if (buffer.length > maxLine) {
        // Refused as soon as it is too long, not when (if ever) its newline arrives.
        lines.push({ _tag: "Oversize" })
        buffer = ""
        discarding = true
      }
    }
    return lines
  }
}

/** A client's id as JSON text: a number's token as sent, a string re-encoded, or `null`. */
type IdText = string

/** What to write back for one id of ours: the library's answer under the client's id, or our own error in its place. */
type Pending =
  | { readonly _tag: "Answer"; readonly id: IdText }
  | { readonly _tag: "Replace"; readonly id: IdText; readonly error: JsonRpcError }
  /** MCP: a cancelled request gets no answer, whatever the library writes for it. */
  | { readonly _tag: "Cancelled" }

export interface Framer {
  /** stdin bytes → the lines the library reads: only requests it can decode, each under an id of ours. */
  readonly input: <E, R>(stdin: Stream.Stream<Uint8Array, E, R>) => Stream.Stream<Uint8Array, E, R>
  /** The library's output lines → stdout, each answer under the id the client sent. */
  readonly output: <E, R>(stdout: Sink.Sink<void, Uint8Array | string, unknown, E, R>) => Sink.Sink<void, Uint8Array | string, unknown, E, R>
}

// `unsafe`: the CLI silences Console.error (its usage docs); a log line goes to stderr as it is.
const writeLogs = (lines: ReadonlyArray<string>) =>
  Console.consoleWith((console) => Effect.sync(() => lines.forEach((line) => console.unsafe.error(`pcli mcp: ${echo(line, 300)}`))))

/** Runs `f` over one chunk, then writes the log lines it collected; no Effect per line on the hot path. */
const withLogs = <A>(f: (log: (line: string) => void) => A): Effect.Effect<A> =>
  Effect.suspend(() => {
    const logs: Array<string> = []
    const value = f((line) => logs.push(line))
    return logs.length === 0 ? Effect.succeed(value) : Effect.as(writeLogs(logs), value)
  })

/**
 * The id's text in `line` (found by `find` in it, JSON.parse having accepted it). A number keeps its
 * token; the token is used only if it reads back as the number parsed, else the number is re-encoded.
 */
const idText = (id: unknown, line: string, find: (line: string) => string | undefined): IdText => {
  if (typeof id !== "number") return JSON.stringify(id ?? null)
  const token = find(line)
  return token !== undefined && Object.is(JSON.parse(token), id) ? token : JSON.stringify(id)
}
const requestId = (line: string) => topLevelMemberToken(line, "id")
const cancelledId = (line: string) => {
  const params = topLevelMemberToken(line, "params")
  return params === undefined ? undefined : topLevelMemberToken(params, "requestId")
}

/** An answer line under the client's id text; `body` is JSON already. */
const answer = (id: IdText, key: "result" | "error", body: string) => `{"jsonrpc":"2.0","id":${id},"${key}":${body}}\n`
const errorAnswer = (id: IdText, error: JsonRpcError) => answer(id, "error", JSON.stringify(error))

// How upstream writes a success (JSON.stringify of `{jsonrpc, id, result}`): its id is swapped without re-encoding the result.
const SUCCESS = /^\{"jsonrpc":"2\.0","id":(\d+),"result":/

export const makeFramer = (): Framer => {
  const pending = new Map<number, Pending>()
  // The client's id text → ours, so notifications/cancelled reaches the right request.
  const ours = new Map<string, number>()
  let next = 0
  const encoder = new TextEncoder()

  const forward = (message: Record<string, unknown>, entry: Pending): Uint8Array => {
    const id = ++next
    pending.set(id, entry)
    if (entry._tag === "Answer") ours.set(entry.id, id)
    return encoder.encode(`${JSON.stringify({ ...message, id })}\n`)
  }

  // A refusal is answered through the library too, as a ping under an id of ours: one writer, answers in order.
  const refuse = (id: IdText, error: JsonRpcError, log: (line: string) => void): Array<Uint8Array> => {
    log(`refused a message (${error.code}): ${error.message}`)
    return [forward({ jsonrpc: "2.0", method: "ping" }, { _tag: "Replace", id, error })]
  }

  const onLine = (line: Line, index: number, log: (line: string) => void): Array<Uint8Array> => {
    if (line._tag === "Oversize") return refuse("null", { code: INVALID_REQUEST, message: `Invalid Request: message ${index} is longer than ${MAX_LINE_CHARS} characters` }, log)
    let parsed: unknown
    try {
      // V8's JSON.parse does not recurse: any depth parses, and screen() bounds it before anything that recurses.
      parsed = JSON.parse(line.text)
    } catch (e) {
      return refuse("null", { code: PARSE_ERROR, message: `Parse error: message ${index} is not JSON (${e instanceof Error ? echo(e.message, 120) : "invalid"})` }, log)
    }
    // One parse for the message; a number id's text is then read from the line itself.
    const screened = screen(parsed)
    switch (screened._tag) {
      case "Request":
        return [forward(screened.message, { _tag: "Answer", id: idText(screened.id, line.text, requestId) })]
      case "Refused":
        return refuse(idText(screened.id, line.text, requestId), screened.error, log)
      case "Ignored":
        log(`ignored message ${index}: ${screened.reason}`)
        return []
      case "Notification":
        return notification(screened.message, line.text)
    }
  }

  const notification = (message: Record<string, unknown>, line: string): Array<Uint8Array> => {
    if (message["method"] !== "notifications/cancelled") return [encoder.encode(`${JSON.stringify(message)}\n`)]
    const params = message["params"] as { requestId?: unknown } | undefined
    const id = ours.get(idText(params?.requestId, line, cancelledId))
    // Cancelling a request that is not in flight is a no-op (MCP says the receiver may ignore it).
    if (id === undefined) return []
    take(id)
    pending.set(id, { _tag: "Cancelled" })
    return [encoder.encode(`${JSON.stringify({ ...message, params: { ...params, requestId: id } })}\n`)]
  }

  /** The entry for one of our ids, removed: each is answered once. */
  const take = (id: number): Pending | undefined => {
    const entry = pending.get(id)
    if (entry === undefined) return undefined
    pending.delete(id)
    if (entry._tag === "Answer") ours.delete(entry.id)
    return entry
  }

  /** One line the library wrote: an answer gets the client's id back; anything else passes as it is. */
  const restore = (line: string, log: (line: string) => void): string => {
    if (line.length === 0) return line
    const success = SUCCESS.exec(line)
    if (success !== null) {
      const entry = take(Number(success[1]))
      if (entry?._tag === "Answer") return `{"jsonrpc":"2.0","id":${entry.id},"result":${line.slice(success[0].length)}\n`
      if (entry?._tag === "Replace") return errorAnswer(entry.id, entry.error)
      if (entry?._tag === "Cancelled") return ""
    }
    let message: Record<string, unknown>
    try {
      message = JSON.parse(line) as Record<string, unknown>
    } catch {
      return `${line}\n`
    }
    if (typeof message["method"] === "string" || !("id" in message)) return `${line}\n`
    const entry = typeof message["id"] === "number" ? take(message["id"]) : undefined
    if (entry === undefined) {
      // Upstream writes a defect with `id: -32603`; the request it belongs to is unknown.
      log(`internal error: ${echo(JSON.stringify(message["error"] ?? null), 200)}`)
      return errorAnswer("null", { code: INTERNAL_ERROR, message: "Internal error" })
    }
    if (entry._tag === "Replace") return errorAnswer(entry.id, entry.error)
    if (entry._tag === "Cancelled") return ""
    const error = message["error"] as { code?: unknown; message?: unknown } | undefined
    if (error === undefined || error === null) return answer(entry.id, "result", JSON.stringify(message["result"] ?? null))
    return errorAnswer(entry.id, answerError(error, log))
  }

  return {
    input: (stdin) => {
      const split = makeSplitter(MAX_LINE_CHARS)
      const decoder = new TextDecoder()
      let count = 0
      return stdin.pipe(
        Stream.mapConcatChunkEffect((bytes) =>
          withLogs((log) => Chunk.unsafeFromArray(split(decoder.decode(bytes, { stream: true })).flatMap((line) => onLine(line, ++count, log))))
        )
      )
    },
    output: (stdout) => {
      const decoder = new TextDecoder()
      return Sink.mapInputEffect(stdout, (chunk: Uint8Array | string) =>
        withLogs((log) => {
          const text = typeof chunk === "string" ? chunk : decoder.decode(chunk)
          return text.split("\n").map((line) => restore(line, log)).join("")
        })
      )
    }
  }
}

/**
 * An error as JSON-RPC states it: `{code, message}` with a JSON-RPC code. Upstream adds the Effect
 * cause as `data` and uses code 0 for a defect; a defect is an internal error, logged on one line.
 */
const answerError = (error: { code?: unknown; message?: unknown }, log: (line: string) => void): JsonRpcError => {
  const code = typeof error.code === "number" && Number.isInteger(error.code) && error.code !== 0 ? error.code : INTERNAL_ERROR
  const message = typeof error.message === "string" ? echo(error.message, 500) : "Internal error"
  if (code !== INTERNAL_ERROR) return code === INVALID_PARAMS ? { code, message, data: { code: "invalid_argument" } } : { code, message }
  log(`internal error: ${message}`)
  return { code, message: "Internal error" }
}
