import type { HttpClientError } from "@effect/platform"

/** Socket-level failures that a later attempt can get past. TLS trust failures are not among them. */
const TRANSIENT_CODES = new Set([
  "ECONNRESET",
  "ECONNREFUSED",
  "ECONNABORTED",
  "ETIMEDOUT",
  "EPIPE",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_SOCKET"
])

const codeOf = (cause: unknown): string | undefined => {
  if (typeof cause !== "object" || cause === null) return undefined
  if ("code" in cause && typeof cause.code === "string") return cause.code
  return "cause" in cause ? codeOf(cause.cause) : undefined
}

/** One line naming what failed on the wire (an error code, never request contents), and whether to retry. */
export const describeTransportError = (
  error: HttpClientError.HttpClientError
): { readonly detail: string; readonly transient: boolean } => {
  const code = codeOf(error.cause)
  if (error._tag === "ResponseError") return { detail: `connection lost while reading the answer`, transient: true }
  if (error.reason !== "Transport") return { detail: `request could not be sent (${error.reason})`, transient: false }
  if (code === undefined) return { detail: "connection failed", transient: true }
  const transient = TRANSIENT_CODES.has(code)
  return { detail: transient ? `connection failed (${code})` : `TLS or connection setup failed (${code})`, transient }
}
