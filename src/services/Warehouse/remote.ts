import type { HttpClient } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import type * as Https from "node:https"
import type { WarehouseAdapter } from "../../schemas/adapters"
import type { NoWarehouseCredentials } from "../WarehouseAuth/errors"
import { layerFromAdapter as clientLayerFromAdapter, type WarehouseServices } from "../WarehouseClient/layer"
import { type StatementError, WarehouseStatements } from "../WarehouseClient/statements"
import type { WarehouseClientOptions } from "../WarehouseClient/WarehouseClient"
import { StatementFailed, Warehouse } from "./Warehouse"

/** Failure messages the warehouse uses for conditions that clear up on their own. */
const TRANSIENT_MESSAGES = [
  "TEMPORARILY_UNAVAILABLE",
  "UC_REQUEST_LIMIT_EXCEEDED",
  "DEADLINE_EXCEEDED",
  "WAREHOUSE IS STARTING",
  "INVALID OPERATIONHANDLE",
  "CONNECTION RESET",
  "RESOURCE_DOES_NOT_EXIST"
]

const isTransientMessage = (text: string) => {
  const upper = text.toUpperCase()
  return TRANSIENT_MESSAGES.some((marker) => upper.includes(marker))
}

/** Maps a client failure onto the engine's `StatementFailed`, deciding what a later retry may fix. */
export const toStatementFailed = (error: StatementError): StatementFailed => {
  switch (error._tag) {
    case "StatementExecutionFailed":
      return new StatementFailed({
        detail: error.message,
        state: error.state,
        transient: isTransientMessage(`${error.errorCode ?? ""} ${error.detail}`)
      })
    case "StatementTimedOut":
      return new StatementFailed({ detail: error.message, state: "CANCELED", transient: true })
    case "WarehouseApiError":
      return new StatementFailed({
        detail: error.message,
        transient: error.transient,
        ...(error.retryAfterMillis === undefined ? {} : { retryAfterMillis: error.retryAfterMillis })
      })
    case "WarehouseUnreachable":
      return new StatementFailed({ detail: error.message, transient: error.transient })
    case "TokenExchangeFailed":
      return new StatementFailed({ detail: error.message, transient: error.transient })
    case "WarehouseResponseInvalid":
      return new StatementFailed({ detail: error.message, transient: false })
  }
}

/** The `Warehouse` execution target on a remote SQL warehouse. */
export const layer: Layer.Layer<Warehouse, never, WarehouseStatements> = Layer.effect(
  Warehouse,
  Effect.map(WarehouseStatements, (statements) =>
    Warehouse.of({
      kind: "remote",
      execute: (sql) =>
        statements.execute(sql).pipe(
          Effect.map(({ columns, rows }) => ({ columns, rows })),
          Effect.mapError(toStatementFailed)
        )
    })
  )
)

/**
 * Remote `Warehouse` for one adapter block plus its catalog/bindings/statement services,
 * all sharing one token cache, on a caller-supplied HttpClient (tests pass a CA-trusting one).
 */
export const layerFromAdapterWith = (
  adapterName: string,
  adapter: WarehouseAdapter,
  options: WarehouseClientOptions = {}
): Layer.Layer<Warehouse | WarehouseServices, NoWarehouseCredentials, HttpClient.HttpClient> =>
  layer.pipe(Layer.provideMerge(clientLayerFromAdapter(adapterName, adapter, options)))

/**
 * Production: remote `Warehouse` (and the catalog/bindings services) for one
 * `[adapter.NAME]` block over Node's default HTTPS agent; build it once per block. Env fallbacks (`WAREHOUSE_TOKEN`, …) come from the ambient ConfigProvider.
 */
export const layerFromAdapter = (
  adapterName: string,
  adapter: WarehouseAdapter
): Layer.Layer<Warehouse | WarehouseServices, NoWarehouseCredentials> =>
  layerFromAdapterWith(adapterName, adapter).pipe(Layer.provide(warehouseHttpClient()))

/** Beyond this, calls queue in the agent instead of paying for more TLS handshakes. */
export const MAX_SOCKETS_PER_HOST = 32

/**
 * NodeHttpClient over a keep-alive HTTPS agent (the platform default agent opens a TLS
 * connection per call). Trust is Node's: system CAs plus `NODE_EXTRA_CA_CERTS`; `extra`
 * exists so tests can hand the agent their CA, never to change where calls go.
 */
export const warehouseHttpClient = (extra: Https.AgentOptions = {}): Layer.Layer<HttpClient.HttpClient> =>
  NodeHttpClient.layerWithoutAgent.pipe(Layer.provide(NodeHttpClient.makeAgentLayer({ keepAlive: true, maxSockets: MAX_SOCKETS_PER_HOST, ...extra })))
