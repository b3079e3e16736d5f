import { HttpClient } from "@effect/platform"
import { Clock, Context, Effect, Layer, Option, Redacted, Ref } from "effect"
import type { WarehouseAdapter } from "../../schemas/adapters"
import { resolveCredentials, type WarehouseCredentials } from "./credentials"
import { NoWarehouseCredentials, TokenExchangeFailed } from "./errors"
import { exchangeClientCredentials } from "./tokenExchange"

export { NoWarehouseCredentials, TokenExchangeFailed }

/** A cached token is refreshed once it has less than this long to live. */
export const REFRESH_MARGIN_MILLIS = 60_000

export interface WarehouseAuthService {
  readonly host: string
  readonly method: WarehouseCredentials["method"]
  /** The bearer credential for the next call: the token, or a cached / refreshed OAuth access token. */
  readonly accessToken: Effect.Effect<Redacted.Redacted<string>, TokenExchangeFailed>
  /** Drops the cached OAuth token if it is still `rejected` (a 401/403 answered it). No-op for a token. */
  readonly invalidate: (rejected: Redacted.Redacted<string>) => Effect.Effect<void>
}

export class WarehouseAuth extends Context.Tag("pcli/WarehouseAuth")<WarehouseAuth, WarehouseAuthService>() {}

interface CachedToken {
  readonly token: Redacted.Redacted<string>
  readonly expiresAt: number
  readonly generation: number
}

/**
 * OAuth access tokens, shared by every caller of one adapter: a fast path reads the cache;
 * a miss takes the single permit, so one exchange in flight serves all concurrent callers.
 */
const makeOAuthTokens = (
  http: HttpClient.HttpClient,
  host: string,
  clientId: string,
  clientSecret: Redacted.Redacted<string>
) =>
  Effect.gen(function* () {
    const cache = yield* Ref.make(Option.none<CachedToken>())
    const permit = yield* Effect.makeSemaphore(1)

    const refresh = (seenGeneration: number) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const cached = Option.getOrUndefined(yield* Ref.get(cache))
        // Someone refreshed while we queued: their token is newer than ours, use it while unexpired.
        if (cached !== undefined && cached.generation !== seenGeneration && cached.expiresAt > now) return cached.token
        if (cached !== undefined && cached.expiresAt - now > REFRESH_MARGIN_MILLIS) return cached.token
        const body = yield* exchangeClientCredentials(http, host, clientId, clientSecret)
        const generation = (cached?.generation ?? 0) + 1
        yield* Ref.set(cache, Option.some({ token: body.access_token, expiresAt: now + body.expires_in * 1000, generation }))
        yield* Effect.logDebug("warehouse access token refreshed").pipe(
          Effect.annotateLogs({ host, expires_in: body.expires_in })
        )
        return body.access_token
      })

    const accessToken = Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      const cached = Option.getOrUndefined(yield* Ref.get(cache))
      if (cached !== undefined && cached.expiresAt - now > REFRESH_MARGIN_MILLIS) return cached.token
      return yield* permit.withPermits(1)(refresh(cached?.generation ?? 0))
    })

    const invalidate = (rejected: Redacted.Redacted<string>) =>
      Ref.update(cache, (cached) =>
        Option.isSome(cached) && Redacted.value(cached.value.token) === Redacted.value(rejected) ? Option.none() : cached
      )

    return { accessToken, invalidate }
  })

/** Builds the auth for one adapter block; fails before any network call when no method is configured. */
export const make = (adapterName: string, adapter: WarehouseAdapter) =>
  Effect.gen(function* () {
    const credentials = yield* resolveCredentials(adapterName, adapter)
    const host = adapter.host
    if (credentials.method === "token") {
      return WarehouseAuth.of({
        host,
        method: "token",
        accessToken: Effect.succeed(credentials.token),
        invalidate: () => Effect.void
      })
    }
    const http = yield* HttpClient.HttpClient
    const tokens = yield* makeOAuthTokens(http, host, credentials.clientId, credentials.clientSecret)
    return WarehouseAuth.of({ host, method: "oauth", ...tokens })
  })

export const layer = (
  adapterName: string,
  adapter: WarehouseAdapter
): Layer.Layer<WarehouseAuth, NoWarehouseCredentials, HttpClient.HttpClient> =>
  Layer.effect(WarehouseAuth, make(adapterName, adapter))
