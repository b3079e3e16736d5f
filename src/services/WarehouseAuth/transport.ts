import type { HttpClientError } from "@effect/platform"

/**
 * Socket-level failures that a later attempt can get past. A refused connection and a host
 * that does not resolve (ENOTFOUND, EAI_AGAIN) are not: they outlast any retry budget.
 */
const TRANSIENT_CODES = new Set(["ECONNRESET", "ECONNABORTED", "ETIMEDOUT", "EPIPE", "EHOSTUNREACH", "ENETUNREACH", "UND_ERR_SOCKET"])

/** What the permanent connection failures mean, for the one-line message. */
const PERMANENT_DETAILS: Readonly<Record<string, string>> = {
  ECONNREFUSED: "connection refused (ECONNREFUSED): nothing accepts connections at that host and port",
  ENOTFOUND: "host not found (ENOTFOUND): check the adapter's host",
  EAI_AGAIN: "host name could not be resolved (EAI_AGAIN): DNS lookup failed"
}

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
  const permanent = PERMANENT_DETAILS[code]
  if (permanent !== undefined) return { detail: permanent, transient: false }
  return { detail: transient ? `connection failed (${code})` : `TLS or connection setup failed (${code})`, transient }
}
