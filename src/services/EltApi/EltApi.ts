import { HttpClient, HttpClientRequest, HttpClientResponse } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import { Clock, Context, Data, Duration, Effect, Layer, Option, type Redacted, Schedule, Schema } from "effect"
import type { Envelope } from "../../schemas/discover"
import { buildEnvelope } from "./envelope"
import {
  EltApiRefused,
  EltBadResponse,
  type EltError,
  EltHttpStatus,
  EltRateLimited,
  EltTimeout,
  EltUnreachable,
  NoHealthyConnectors
} from "./errors"
import * as RateBudget from "./RateBudget"
import { ConnectorItem, ConnectorsPage, DestinationData, SchemasData, Wrapper } from "./responses"
import { parseRetryAfter } from "./retryAfter"

export const DEFAULT_BASE_URL = "https://api.fivetran.com/v1"

/** What one connector-sync adapter needs to talk to its API. */
export interface EltConnection {
  readonly baseUrl: string
  readonly apiKey: string
  readonly apiSecret: Redacted.Redacted<string>
  readonly destinationId: string
}

export interface EltApiOptions {
  /** Schema requests in flight at once. */
  readonly concurrency: number
  readonly maxRetries: number
  readonly initialBackoff: Duration.DurationInput
  readonly maxBackoff: Duration.DurationInput
  /** Whole-request time-out (connect time-out is the HTTP client's: undici's 10 s). */
  readonly requestTimeout: Duration.DurationInput
  readonly pageSize: number
}

export const defaultEltApiOptions: EltApiOptions = {
  concurrency: 10,
  maxRetries: 3,
  initialBackoff: "1 second",
  maxBackoff: "30 seconds",
  requestTimeout: "120 seconds",
  pageSize: 100
}

/** Called after each connector's schema request settles during a cold fetch. */
export type ProgressCallback = (progress: { readonly done: number; readonly total: number }) => Effect.Effect<void>

export interface EltApiService {
  /** Destination + every connector (all pages) + every connector's schemas → envelope. */
  readonly fetchEnvelope: (
    connection: EltConnection,
    onProgress?: ProgressCallback
  ) => Effect.Effect<Envelope, EltError>
}

export class EltApi extends Context.Tag("pcli/EltApi")<EltApi, EltApiService>() {}

/** A throttle answer still inside the retry loop (429 or 5xx). */
class Throttled extends Data.TaggedError("Throttled")<{
  readonly route: string
  readonly status: number
  readonly body: string
  readonly waitMillis: number
}> {}

type Retryable = Throttled | EltUnreachable | EltTimeout
type AttemptError = Throttled | EltError

const isRetryable = (e: AttemptError): e is Retryable =>
  e._tag === "Throttled" || e._tag === "EltUnreachable" || e._tag === "EltTimeout"

const isNotFound = (e: EltError) =>
  (e._tag === "EltHttpStatus" && e.status === 404) || (e._tag === "EltApiRefused" && e.apiCode.startsWith("NotFound"))

/** Path segments keep only unreserved characters (`.` and `/` are encoded too). */
export const encodeSegment = (segment: string) =>
  Array.from(new TextEncoder().encode(segment), (byte) => {
    const ch = String.fromCharCode(byte)
    return /[A-Za-z0-9\-_~]/.test(ch) ? ch : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`
  }).join("")

export const make = (options: EltApiOptions = defaultEltApiOptions) =>
  Effect.gen(function* () {
    const http = yield* HttpClient.HttpClient
    const budget = yield* RateBudget.RateBudget
    const requestTimeoutMillis = Duration.toMillis(options.requestTimeout)
    const fallbackMillis = Duration.toMillis(options.initialBackoff)

    const retrySchedule = Schedule.identity<AttemptError>().pipe(
      Schedule.intersect(Schedule.exponential(options.initialBackoff, 2).pipe(Schedule.jittered)),
      // The larger of Retry-After and our back-off, capped.
      Schedule.modifyDelay(([error], delay) =>
        Duration.min(
          Duration.max(delay, Duration.millis(error._tag === "Throttled" ? error.waitMillis : 0)),
          Duration.decode(options.maxBackoff)
        )
      ),
      Schedule.intersect(Schedule.recurs(options.maxRetries))
    )

    const attempt = (conn: EltConnection, route: string, url: URL): Effect.Effect<unknown, AttemptError> =>
      Effect.gen(function* () {
        yield* budget.acquire(url.host)
        const request = HttpClientRequest.get(url.toString()).pipe(
          HttpClientRequest.basicAuth(conn.apiKey, conn.apiSecret),
          HttpClientRequest.acceptJson
        )
        const response = yield* http.execute(request).pipe(
          Effect.mapError((e) => new EltUnreachable({ route, detail: e.message })),
          Effect.timeoutFail({
            duration: options.requestTimeout,
            onTimeout: () => new EltTimeout({ route, millis: requestTimeoutMillis })
          }),
          Effect.scoped
        )
        return yield* handleResponse(route, url, response)
      })

    const handleResponse = (route: string, url: URL, response: HttpClientResponse.HttpClientResponse) =>
      Effect.gen(function* () {
        const body = yield* response.text.pipe(
          Effect.mapError((e) => new EltUnreachable({ route, detail: e.message })),
          Effect.timeoutFail({
            duration: options.requestTimeout,
            onTimeout: () => new EltTimeout({ route, millis: requestTimeoutMillis })
          })
        )
        if (response.status === 429 || response.status >= 500) {
          const now = yield* Clock.currentTimeMillis
          const header = parseRetryAfter(response.headers["retry-after"], now)
          const waitMillis = header ?? fallbackMillis
          yield* budget.recordThrottle(url.host, waitMillis)
          yield* Effect.logDebug("connector-sync API throttled").pipe(
            Effect.annotateLogs({ route, status: response.status, wait_ms: waitMillis })
          )
          return yield* new Throttled({ route, status: response.status, body, waitMillis })
        }
        if (response.status < 200 || response.status >= 300) {
          return yield* new EltHttpStatus({ route, status: response.status, body: body.slice(0, 1024) })
        }
        const wrapper = yield* Schema.decodeUnknown(Schema.parseJson(Wrapper))(body).pipe(
          Effect.mapError((e) => new EltBadResponse({ route, detail: e.message }))
        )
        if (wrapper.code !== "Success") {
          return yield* new EltApiRefused({ route, apiCode: wrapper.code, apiMessage: wrapper.message ?? "" })
        }
        if (wrapper.data === undefined) return yield* new EltBadResponse({ route, detail: "response has no data" })
        return wrapper.data
      })

    const get = <A, I>(conn: EltConnection, route: string, url: URL, schema: Schema.Schema<A, I>) =>
      attempt(conn, route, url).pipe(
        Effect.retry({ schedule: retrySchedule, while: isRetryable }),
        Effect.catchTag("Throttled", (t) =>
          Effect.fail<EltRateLimited | EltHttpStatus>(
            t.status === 429
              ? new EltRateLimited({ route, attempts: options.maxRetries + 1 })
              : new EltHttpStatus({ route, status: t.status, body: t.body.slice(0, 1024) })
          )
        ),
        Effect.flatMap((data) =>
          Schema.decodeUnknown(schema)(data).pipe(Effect.mapError((e) => new EltBadResponse({ route, detail: e.message })))
        )
      )

    const urlOf = (conn: EltConnection, path: string) => new URL(`${conn.baseUrl.replace(/\/+$/, "")}${path}`)

    const listConnectors = (conn: EltConnection) =>
      Effect.gen(function* () {
        const path = `/groups/${encodeSegment(conn.destinationId)}/connectors`
        const items: Array<ConnectorItem> = []
        let cursor: string | undefined
        for (;;) {
          const url = urlOf(conn, path)
          if (cursor !== undefined) url.searchParams.set("cursor", cursor)
          url.searchParams.set("limit", String(options.pageSize))
          const page = yield* get(conn, "GET /groups/{id}/connectors", url, ConnectorsPage)
          items.push(...page.items)
          // An empty cursor would loop forever; treat it as the end.
          if (page.next_cursor === undefined || page.next_cursor === null || page.next_cursor === "") return items
          cursor = page.next_cursor
        }
      })

    const fetchEnvelope = (conn: EltConnection, onProgress?: ProgressCallback) =>
      Effect.gen(function* () {
        const [destination, connectors] = yield* Effect.all(
          [
            get(conn, "GET /destinations/{id}", urlOf(conn, `/destinations/${encodeSegment(conn.destinationId)}`), DestinationData),
            listConnectors(conn)
          ],
          { concurrency: Math.min(2, options.concurrency) }
        )
        const total = connectors.length
        let done = 0
        const progress = (): Effect.Effect<void> =>
          Effect.suspend(() => {
            done += 1
            return onProgress === undefined ? Effect.void : onProgress({ done, total })
          })
        if (onProgress !== undefined) yield* onProgress({ done: 0, total })
        const fetched = yield* Effect.forEach(
          connectors,
          (connector) =>
            get(
              conn,
              "GET /connectors/{id}/schemas",
              urlOf(conn, `/connectors/${encodeSegment(connector.id)}/schemas`),
              SchemasData
            ).pipe(
              Effect.map((schemas) => Option.some([connector.id, schemas] as const)),
              // A connector without a schema config is listed but has no `schemas` entry.
              Effect.catchIf(isNotFound, () =>
                Effect.logWarning("connector has no schema config (404); left out of schemas").pipe(
                  Effect.annotateLogs({ connector_id: connector.id }),
                  Effect.as(Option.none<readonly [string, SchemasData]>())
                )
              ),
              Effect.tap(progress)
            ),
          { concurrency: options.concurrency }
        )
        const present = fetched.flatMap((o) => (Option.isSome(o) ? [o.value] : []))
        if (total > 0 && present.length === 0) {
          return yield* new NoHealthyConnectors({ destinationId: conn.destinationId, connectors: total })
        }
        const now = yield* Clock.currentTimeMillis
        return buildEnvelope(now, destination, connectors, present)
      }).pipe(Effect.withSpan("pcli.elt.fetch_envelope", { attributes: { "pcli.destination_id": conn.destinationId } }))

    return EltApi.of({ fetchEnvelope })
  })

/** Needs an `HttpClient` and a `RateBudget`. */
export const layerWith = (options: EltApiOptions) => Layer.effect(EltApi, make(options))
export const layerWithoutDependencies = layerWith(defaultEltApiOptions)

/** Production wiring: undici client (10 s connect time-out) and the machine-wide file budget. */
export const layer = layerWithoutDependencies.pipe(
  Layer.provide(RateBudget.layer),
  Layer.provide(NodeHttpClient.layerUndici)
)
