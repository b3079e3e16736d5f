import { HttpApiBuilder, HttpMiddleware, HttpServer } from "@effect/platform"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Effect, Layer, type Option, type Redacted } from "effect"
import { createServer } from "node:http"
import { ServeApi } from "../http/api"
import { AuditRoutes } from "../http/audit"
import { BriefRoutes } from "../http/brief"
import { ServeListenFailed } from "../http/errors"
import { guard } from "../http/guard"
import { HealthRoutes } from "../http/health"
import { PolicyRoutes } from "../http/policy"
import { ProductRoutes } from "../http/products"
import { EventRoutes } from "../http/events"
import { ModelRoutes } from "../http/models"
import { PlanRoutes } from "../http/plans"
import { RunRoutes } from "../http/runs"
import { DashboardRoutes } from "../http/static"
import * as Telemetry from "../services/Telemetry/Telemetry"
import type { GlobalOptions } from "./ProjectLayer"
import { ChangeFeed } from "../services/Serve/ChangeFeed"
import { ChangeFeedLayer, ServeReadsLayer } from "./ServeLayer"

export interface ServeSettings {
  readonly host: string
  readonly port: number
  readonly token: Option.Option<Redacted.Redacted<string>>
  /** Where request lines go (stderr). */
  readonly log: (line: string) => void
}

/**
 * Node's HTTP server, answering clients that half-close after their request. With its default
 * `httpAllowHalfOpen = false`, Node aborts the request on the client's FIN and ends the socket;
 * the response's "close" then interrupts the platform's handler fiber before it writes, so a
 * complete GET followed by `socket.end()` got no answer whenever the handler had not finished.
 * Set to true, Node marks the response as the connection's last and ends the socket after it.
 */
const halfOpenServer = () => Object.assign(createServer(), { httpAllowHalfOpen: true })

const routes = Layer.mergeAll(PolicyRoutes, AuditRoutes, BriefRoutes, ProductRoutes, HealthRoutes, RunRoutes, ModelRoutes, PlanRoutes, EventRoutes)

/**
 * Acquired after the HTTP server (it needs it), so released before it: the event streams end, and
 * the server's close, which waits for every open response, is not held open by them.
 */
const eventStreamsEndFirst = Layer.scopedDiscard(
  Effect.gen(function* () {
    yield* HttpServer.HttpServer
    const feed = yield* ChangeFeed
    yield* Effect.addFinalizer(() => feed.close)
  })
)

const serveLayer = (settings: ServeSettings, options: GlobalOptions) =>
  // As HttpApiBuilder.serve, but the guard wraps the app itself: a middleware passed to serve runs
  // after the server already answered a failure, so its error bodies would never be sent.
  HttpApiBuilder.httpApp.pipe(
    Effect.map((app) => HttpServer.serve(guard(settings.token, settings.log)(app))),
    Layer.unwrapEffect,
    Layer.merge(eventStreamsEndFirst),
    Layer.provide([HttpApiBuilder.Router.Live, HttpApiBuilder.Middleware.layer]),
    Layer.provide(HttpApiBuilder.middlewareOpenApi({ path: "/api/v1/openapi.json" })),
    Layer.provide(DashboardRoutes),
    Layer.provide(HttpApiBuilder.api(ServeApi).pipe(Layer.provide(routes))),
    Layer.provideMerge(
      NodeHttpServer.layer(halfOpenServer, { host: settings.host, port: settings.port }).pipe(
        Layer.mapError((e) => new ServeListenFailed({ address: `${settings.host}:${settings.port}`, detail: String((e.cause as Error | undefined)?.message ?? e.message) }))
      )
    ),
    Layer.provide(ChangeFeedLayer(options)),
    // Built before the server listens: a connection made while the store opened would get no answer.
    Layer.provide(ServeReadsLayer(options))
  )

/**
 * Each request's `http.server` span (its URL parsed, headers redacted, a dozen attributes) only when
 * spans are exported: otherwise it is work for no reader, a few percent of a kept route's time.
 */
const spansWhenExported = <A, E, R>(layer: Layer.Layer<A, E, R>) =>
  Layer.unwrapEffect(Effect.map(Telemetry.exporting, (on) => (on ? layer : HttpMiddleware.withTracerDisabledWhen(layer, () => true))))

/** `pcli serve`: the HttpApi, its OpenAPI document and the dashboard over one read-only context, on Node's HTTP server. */
export const HttpServeLayer = (settings: ServeSettings, options: GlobalOptions) =>
  spansWhenExported(serveLayer(settings, options))
