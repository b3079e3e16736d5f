import { ClientNotificationRpcs, ClientRequestRpcs } from "@effect/ai/McpSchema"
import { Either, ParseResult, Schema } from "effect"
import { echo } from "../platform/echo"
import { formatJsonPath, jsonBoundsIssue, MAX_JSON_NESTING } from "../platform/jsonBounds"

/** JSON-RPC 2.0 error codes (https://www.jsonrpc.org/specification#error_object). */
export const PARSE_ERROR = -32700
export const INVALID_REQUEST = -32600
export const METHOD_NOT_FOUND = -32601
export const INVALID_PARAMS = -32602
export const INTERNAL_ERROR = -32603

/** Largest tool arguments accepted, counted in characters of their strings and keys (draft_model's two 1 MB files fit). */
export const MAX_ARGUMENT_CHARS = 4 * 1024 * 1024

/** A request id as JSON.parse read it; the framer echoes a number's own text (framing.ts). */
export type JsonRpcId = string | number

export interface JsonRpcError {
  readonly code: number
  readonly message: string
  readonly data?: { readonly code: string; readonly field?: string }
}

/** What one incoming line is, after screening. */
export type Screened =
  /** A request the library can serve; `message` is the parsed object, to be re-sent under another id. */
  | { readonly _tag: "Request"; readonly id: JsonRpcId; readonly message: Record<string, unknown> }
  /** A notification to pass on (the library answers none). */
  | { readonly _tag: "Notification"; readonly message: Record<string, unknown> }
  /** A line to answer with an error, and nothing else. */
  | { readonly _tag: "Refused"; readonly id: JsonRpcId | null; readonly error: JsonRpcError }
  /** A line that gets no answer (an unknown notification, a response to no request), only a log line. */
  | { readonly _tag: "Ignored"; readonly reason: string }

const refused = (id: JsonRpcId | null, code: number, message: string, data?: JsonRpcError["data"]): Screened => ({
  _tag: "Refused",
  id,
  error: data === undefined ? { code, message: echo(message, 500) } : { code, message: echo(message, 500), data }
})

const invalidParams = (id: JsonRpcId, message: string, field: string): Screened =>
  refused(id, INVALID_PARAMS, message, { code: "invalid_argument", field })

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

// Any number: the framer echoes its text, so one JSON.parse reads as Infinity (1e400) is still an id.
const isId = (u: unknown): u is JsonRpcId => typeof u === "string" || typeof u === "number"

// The library's own payload schemas: a request it would fail to decode is refused here, with the field named.
const decoders = new Map<string, (u: unknown) => Either.Either<unknown, ParseResult.ParseError>>(
  Array.from(ClientRequestRpcs.requests.values(), (rpc) => [rpc._tag, Schema.decodeUnknownEither(rpc.payloadSchema as Schema.Schema<unknown, unknown, never>)])
)
const notifications = new Set<string>(ClientNotificationRpcs.requests.keys())

const firstIssue = (error: ParseResult.ParseError) => {
  const issue = ParseResult.ArrayFormatter.formatErrorSync(error)[0]
  return { field: issue === undefined ? "" : formatJsonPath(issue.path as ReadonlyArray<string | number>), message: issue?.message ?? "invalid" }
}

/** Tool arguments: bounded in depth and size, no NUL in any string, before any decoder sees them. */
const argumentsIssue = (args: unknown): { readonly field: string; readonly problem: string } | undefined => {
  const bounds = jsonBoundsIssue(args, { maxDepth: MAX_JSON_NESTING, refuseNul: true })
  if (bounds !== undefined) return { field: bounds.path.length === 0 ? "arguments" : formatJsonPath(bounds.path), problem: bounds.problem }
  let chars = 0
  const stack: Array<unknown> = [args]
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    if (typeof top === "string") chars += top.length
    else if (Array.isArray(top)) stack.push(...top)
    else if (isObject(top)) for (const key of Object.keys(top)) chars += key.length, stack.push(top[key])
    if (chars > MAX_ARGUMENT_CHARS) return { field: "arguments", problem: `larger than ${MAX_ARGUMENT_CHARS} characters` }
  }
  return undefined
}

/** `tools/call` params: a missing `arguments` is `{}` (optional in the MCP schema); the rest is checked before decoding. */
const screenToolCall = (id: JsonRpcId, params: Record<string, unknown>): Either.Either<Record<string, unknown>, Screened> => {
  const tool = typeof params["name"] === "string" ? echo(params["name"], 64) : "tools/call"
  if (!Object.hasOwn(params, "arguments")) return Either.right({ ...params, arguments: {} })
  const args = params["arguments"]
  if (!isObject(args)) return Either.left(invalidParams(id, `${tool}: invalid argument arguments: expected an object`, "arguments"))
  const issue = argumentsIssue(args)
  return issue === undefined ? Either.right(params) : Either.left(invalidParams(id, `${tool}: invalid argument ${issue.field}: ${issue.problem}`, issue.field))
}

/** One parsed line, judged as JSON-RPC 2.0 and MCP say, so that the library only ever sees requests it can decode. */
export const screen = (parsed: unknown): Screened => {
  if (!isObject(parsed)) return refused(null, INVALID_REQUEST, `Invalid Request: expected a JSON-RPC request object, got ${Array.isArray(parsed) ? "an array (batches are not supported)" : parsed === null ? "null" : typeof parsed}`)
  const hasId = Object.hasOwn(parsed, "id")
  const method = parsed["method"]
  if (!hasId && method === undefined) {
    return "result" in parsed || "error" in parsed
      ? { _tag: "Ignored", reason: "a response to no request this server sent" }
      : refused(null, INVALID_REQUEST, "Invalid Request: no method")
  }
  const rawId = parsed["id"]
  // MCP: "the ID MUST NOT be null", and anything but a string or a number is not an id at all.
  if (hasId && !isId(rawId)) return refused(null, INVALID_REQUEST, `Invalid Request: id must be a string or a number, got ${rawId === null ? "null" : Array.isArray(rawId) ? "an array" : typeof rawId}`)
  const id = hasId ? (rawId as JsonRpcId) : null
  if (parsed["jsonrpc"] !== "2.0") return id === null ? { _tag: "Ignored", reason: "a notification without jsonrpc 2.0" } : refused(id, INVALID_REQUEST, `Invalid Request: jsonrpc must be "2.0"`)
  if (typeof method !== "string") return id === null ? { _tag: "Ignored", reason: "a notification without a method" } : refused(id, INVALID_REQUEST, "Invalid Request: method must be a string")
  if (id === null) {
    return notifications.has(method) ? { _tag: "Notification", message: parsed } : { _tag: "Ignored", reason: `unknown notification ${echo(method, 64)}` }
  }
  const decode = decoders.get(method)
  if (decode === undefined) return refused(id, METHOD_NOT_FOUND, `Method not found: ${method === "" ? "(empty)" : method}`)
  const given = parsed["params"]
  if (given !== undefined && !isObject(given)) return invalidParams(id, `${method}: params must be an object`, "params")
  let params: Record<string, unknown> | undefined = given
  if (method === "tools/call" && params !== undefined) {
    const checked = screenToolCall(id, params)
    if (Either.isLeft(checked)) return checked.left
    params = checked.right
  }
  if (params !== undefined) {
    // The rest of params (`_meta`, a name) is bounded too; arguments were bounded above at their own depth.
    const deep = jsonBoundsIssue(params, { maxDepth: MAX_JSON_NESTING + 2 })
    if (deep !== undefined) return invalidParams(id, `${method}: invalid params.${formatJsonPath(deep.path)}: ${deep.problem}`, `params.${formatJsonPath(deep.path)}`)
  }
  const decoded = decode(params)
  if (Either.isLeft(decoded)) {
    if (params === undefined) return invalidParams(id, `${method}: params is missing`, "params")
    const { field, message } = firstIssue(decoded.left)
    const where = field === "" ? "params" : `params.${field}`
    return invalidParams(id, `${method}: invalid ${where}: ${message}`, where)
  }
  return { _tag: "Request", id, message: params === given ? parsed : { ...parsed, params } }
}
