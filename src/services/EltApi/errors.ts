import { Data } from "effect"

/** The API answered with a non-2xx status (after retries for 5xx). */
export class EltHttpStatus extends Data.TaggedError("EltHttpStatus")<{
  readonly route: string
  readonly status: number
  readonly body: string
}> {
  readonly code = "elt-http-status"
  override get message() {
    return `connector-sync API ${this.route} answered HTTP ${this.status}: ${this.body.replace(/\s+/g, " ").slice(0, 200)}`
  }
}

/** HTTP 429 on every attempt. */
export class EltRateLimited extends Data.TaggedError("EltRateLimited")<{
  readonly route: string
  readonly attempts: number
}> {
  readonly code = "elt-rate-limited"
  override get message() {
    return `connector-sync API ${this.route} rate-limited (HTTP 429) on all ${this.attempts} attempts`
  }
}

/** HTTP 200 but the wrapper's `code` is not `Success`. */
export class EltApiRefused extends Data.TaggedError("EltApiRefused")<{
  readonly route: string
  readonly apiCode: string
  readonly apiMessage: string
}> {
  readonly code = "elt-api-refused"
  override get message() {
    return `connector-sync API ${this.route} refused: ${this.apiCode}: ${this.apiMessage}`
  }
}

/** The body is not the JSON shape the API documents. */
export class EltBadResponse extends Data.TaggedError("EltBadResponse")<{
  readonly route: string
  readonly detail: string
}> {
  readonly code = "elt-bad-response"
  override get message() {
    return `connector-sync API ${this.route} returned an unexpected body: ${this.detail.split("\n")[0] ?? ""}`
  }
}

/** Connecting or transferring failed (refused, reset, DNS, TLS). */
export class EltUnreachable extends Data.TaggedError("EltUnreachable")<{
  readonly route: string
  readonly detail: string
}> {
  readonly code = "elt-unreachable"
  override get message() {
    return `connector-sync API ${this.route} unreachable: ${this.detail.split("\n")[0] ?? ""}`
  }
}

/** The request did not finish within the request time-out. */
export class EltTimeout extends Data.TaggedError("EltTimeout")<{
  readonly route: string
  readonly millis: number
}> {
  readonly code = "elt-timeout"
  override get message() {
    return `connector-sync API ${this.route} timed out after ${this.millis} ms`
  }
}

/** Every connector's schema config answered 404: nothing usable to discover. */
export class NoHealthyConnectors extends Data.TaggedError("NoHealthyConnectors")<{
  readonly destinationId: string
  readonly connectors: number
}> {
  readonly code = "elt-no-healthy-connectors"
  override get message() {
    return `destination ${this.destinationId}: all ${this.connectors} connectors returned 404 for their schema config`
  }
}

export type EltError =
  | EltHttpStatus
  | EltRateLimited
  | EltApiRefused
  | EltBadResponse
  | EltUnreachable
  | EltTimeout
  | NoHealthyConnectors
