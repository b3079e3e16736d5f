import { HttpClient, HttpClientRequest, HttpClientResponse } from "@effect/platform"
import { Clock, Context, Data, Duration, Effect, Layer, Redacted, Schema } from "effect"
import type { WarehouseAdapter } from "../../schemas/adapters"
import { ApiErrorBody } from "../../schemas/warehouse-api"
import { describeTransportError } from "../WarehouseAuth/transport"
import { TokenExchangeFailed, WarehouseAuth } from "../WarehouseAuth/WarehouseAuth"
import { WarehouseApiError, WarehouseResponseInvalid, WarehouseUnreachable } from "./errors"

export type WarehouseCallError = WarehouseApiError | WarehouseUnreachable | WarehouseResponseInvalid | TokenExchangeFailed

export interface ApiCall {
  readonly method: "GET" | "POST" | "PATCH" | "DELETE"
  /** Path below `https://<host>`, already percent-encoded. */
  readonly path: string
  readonly query?: Readonly<Record<string, string>>
  readonly body?: unknown
}

export interface WarehouseClientOptions {
  /** Per-call HTTP time-out. */
  readonly requestTimeout?: Duration.DurationInput
}

export interface WarehouseClientService {
  readonly host: string
  /** Last `/` segment of `http_path`. */
  readonly warehouseId: string
  readonly statementTimeoutSeconds: number
  /**
   * One authenticated REST call, decoded with `schema`: 401/403 drops the token and tries once
   * more with a fresh one. Nothing else is retried here: failures carry `transient` (and a
   * `Retry-After`) for the one retry layer above (the runner, `Warehouse/retry.ts`).
   */
  readonly call: <A, I>(call: ApiCall, schema: Schema.Schema<A, I>) => Effect.Effect<A, WarehouseCallError>
}

export class WarehouseClient extends Context.Tag("pcli/WarehouseClient")<WarehouseClient, WarehouseClientService>() {}

export const DEFAULT_STATEMENT_TIMEOUT_SECONDS = 120

/** `/sql/1.0/warehouses/abc123` → `abc123` (a trailing slash is ignored). */
export const warehouseIdOf = (httpPath: string): string =>
  httpPath.split("/").filter((segment) => segment.length > 0).pop() ?? ""

/** The answer was 401/403 with this token; the caller may refresh and retry once. */
class Unauthorized extends Data.TaggedError("Unauthorized")<{
  readonly rejected: Redacted.Redacted<string>
  readonly error: WarehouseApiError
}> {}

const parseRetryAfter = (value: string | undefined, now: number): number | undefined => {
  if (value === undefined) return undefined
  const seconds = Number(value)
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000
  const date = Date.parse(value)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

const errorDetail = (response: HttpClientResponse.HttpClientResponse) =>
  HttpClientResponse.schemaBodyJson(ApiErrorBody)(response).pipe(
    Effect.orElseSucceed(() => ({ error_code: undefined, message: undefined }))
  )

export const make = (options: WarehouseClientOptions = {}) =>
  (adapter: WarehouseAdapter) =>
    Effect.gen(function* () {
      const auth = yield* WarehouseAuth
      const http = yield* HttpClient.HttpClient
      const host = adapter.host
      const requestTimeout = Duration.decode(options.requestTimeout ?? "60 seconds")

      const attempt = <A, I>(call: ApiCall, schema: Schema.Schema<A, I>) =>
        Effect.gen(function* () {
          const token = yield* auth.accessToken
          const unreachable = (detail: string, transient: boolean) =>
            new WarehouseUnreachable({ host, method: call.method, path: call.path, detail, transient })
          let request = HttpClientRequest.make(call.method)(`https://${host}${call.path}`).pipe(
            HttpClientRequest.bearerToken(token),
            HttpClientRequest.acceptJson
          )
          if (call.query !== undefined) request = HttpClientRequest.setUrlParams(request, call.query)
          if (call.body !== undefined) request = HttpClientRequest.bodyUnsafeJson(request, call.body)

          const response = yield* http.execute(request).pipe(
            Effect.mapError((error) => {
              const { detail, transient } = describeTransportError(error)
              return unreachable(detail, transient)
            })
          )
          if (response.status >= 200 && response.status < 300) {
            if (response.status === 204) return yield* Schema.decodeUnknown(schema)({}).pipe(
              Effect.mapError(() => new WarehouseResponseInvalid({ host, path: call.path, detail: "empty answer" }))
            )
            return yield* HttpClientResponse.schemaBodyJson(schema)(response).pipe(
              Effect.mapError((error) =>
                error._tag === "ParseError"
                  ? new WarehouseResponseInvalid({ host, path: call.path, detail: "body does not match the API schema" })
                  : unreachable("connection lost while reading the answer", true)
              )
            )
          }
          const body = yield* errorDetail(response)
          const now = yield* Clock.currentTimeMillis
          const retryAfter = parseRetryAfter(response.headers["retry-after"], now)
          const apiError = new WarehouseApiError({
            host,
            method: call.method,
            path: call.path,
            status: response.status,
            ...(body.error_code === undefined ? {} : { errorCode: body.error_code }),
            detail: body.message ?? "no message",
            transient: response.status === 429 || response.status >= 500,
            ...(retryAfter === undefined ? {} : { retryAfterMillis: retryAfter })
          })
          if (response.status === 401 || response.status === 403) {
            return yield* Effect.fail(new Unauthorized({ rejected: token, error: apiError }))
          }
          return yield* Effect.fail(apiError)
        }).pipe(
          Effect.scoped,
          Effect.timeoutFail({
            duration: requestTimeout,
            onTimeout: () =>
              new WarehouseUnreachable({ host, method: call.method, path: call.path, detail: "request timed out", transient: true })
          })
        )

      const call = <A, I>(call: ApiCall, schema: Schema.Schema<A, I>): Effect.Effect<A, WarehouseCallError> =>
        attempt(call, schema).pipe(
          Effect.catchTag("Unauthorized", (first) =>
            auth.method === "token"
              ? Effect.fail(first.error)
              : auth.invalidate(first.rejected).pipe(
                  Effect.zipRight(attempt(call, schema)),
                  Effect.catchTag("Unauthorized", (second) => Effect.fail(second.error))
                )
          ),
          Effect.withSpan("warehouse.call", {
            attributes: { "pcli.host": host, "pcli.method": call.method, "pcli.path": call.path }
          })
        )

      return WarehouseClient.of({
        host,
        warehouseId: warehouseIdOf(adapter.http_path),
        statementTimeoutSeconds: adapter.statement_timeout_seconds ?? DEFAULT_STATEMENT_TIMEOUT_SECONDS,
        call
      })
    })

export const layer = (
  adapter: WarehouseAdapter,
  options: WarehouseClientOptions = {}
): Layer.Layer<WarehouseClient, never, WarehouseAuth | HttpClient.HttpClient> =>
  Layer.effect(WarehouseClient, make(options)(adapter))
