import { Data } from "effect"

/** The warehouse answered a REST call with an error status. */
export class WarehouseApiError extends Data.TaggedError("WarehouseApiError")<{
  readonly host: string
  readonly method: string
  readonly path: string
  readonly status: number
  readonly errorCode?: string
  readonly detail: string
  /** 429 and 5xx: worth retrying. */
  readonly transient: boolean
  /** From a `Retry-After` header, in milliseconds. */
  readonly retryAfterMillis?: number
}> {
  readonly code = "warehouse-api-error"
  override get message() {
    const code = this.errorCode === undefined ? "" : ` ${this.errorCode}`
    return `warehouse ${this.host}: ${this.method} ${this.path} answered HTTP ${this.status}${code}: ${this.detail}`
  }
}

/** The warehouse could not be reached (connection refused or reset, TLS, time-out). */
export class WarehouseUnreachable extends Data.TaggedError("WarehouseUnreachable")<{
  readonly host: string
  readonly method: string
  readonly path: string
  readonly detail: string
  /** Connection refused/reset or a time-out; not a TLS trust failure. */
  readonly transient: boolean
}> {
  readonly code = "warehouse-unreachable"
  override get message() {
    return `warehouse ${this.host}: ${this.method} ${this.path} failed: ${this.detail}`
  }
}

/** A 2xx answer whose body is not what the API documents. */
export class WarehouseResponseInvalid extends Data.TaggedError("WarehouseResponseInvalid")<{
  readonly host: string
  readonly path: string
  readonly detail: string
}> {
  readonly code = "warehouse-response-invalid"
  override get message() {
    return `warehouse ${this.host}: unexpected answer from ${this.path}: ${this.detail}`
  }
}

/** A statement reached FAILED, CANCELED or CLOSED. */
export class StatementExecutionFailed extends Data.TaggedError("StatementExecutionFailed")<{
  readonly host: string
  readonly statementId: string
  readonly state: string
  readonly errorCode?: string
  readonly detail: string
}> {
  readonly code = "warehouse-statement-failed"
  override get message() {
    const code = this.errorCode === undefined ? "" : ` [${this.errorCode}]`
    return `warehouse statement ${this.statementId} ${this.state}${code}: ${this.detail}`
  }
}

/** A statement ran past the adapter's `statement_timeout_seconds`; it was cancelled. */
export class StatementTimedOut extends Data.TaggedError("StatementTimedOut")<{
  readonly host: string
  readonly statementId?: string
  readonly seconds: number
}> {
  readonly code = "warehouse-statement-timeout"
  override get message() {
    const id = this.statementId === undefined ? "" : ` ${this.statementId}`
    return `warehouse statement${id} exceeded ${this.seconds}s and was cancelled`
  }
}
