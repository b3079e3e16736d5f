import { Data } from "effect"

/** A warehouse adapter with neither a token nor a full client id + secret pair. */
export class NoWarehouseCredentials extends Data.TaggedError("NoWarehouseCredentials")<{
  readonly adapter: string
}> {
  readonly code = "warehouse-no-credentials"
  override get message() {
    return (
      `no warehouse credentials for adapter.${this.adapter}: set token (or WAREHOUSE_TOKEN) for a personal access token, ` +
      `or both client_id and client_secret (or WAREHOUSE_CLIENT_ID and WAREHOUSE_CLIENT_SECRET) for OAuth`
    )
  }
}

/** The OAuth token endpoint refused, failed, or answered without a usable token. Never carries the secret. */
export class TokenExchangeFailed extends Data.TaggedError("TokenExchangeFailed")<{
  readonly host: string
  readonly reason: string
  /** Worth retrying later: the endpoint was unreachable or answered 429/5xx. */
  readonly transient: boolean
}> {
  readonly code = "warehouse-token-failed"
  override get message() {
    return `warehouse token request to https://${this.host}/oidc/v1/token failed: ${this.reason}`
  }
}
