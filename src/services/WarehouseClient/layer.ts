import type { HttpClient } from "@effect/platform"
import { Layer } from "effect"
import type { WarehouseAdapter } from "../../schemas/adapters"
import type { NoWarehouseCredentials } from "../WarehouseAuth/errors"
import * as WarehouseAuth from "../WarehouseAuth/WarehouseAuth"
import * as Bindings from "./bindings"
import * as Catalog from "./catalog"
import * as Statements from "./statements"
import * as Client from "./WarehouseClient"

export type WarehouseServices =
  | WarehouseAuth.WarehouseAuth
  | Client.WarehouseClient
  | Statements.WarehouseStatements
  | Catalog.WarehouseCatalog
  | Bindings.WarehouseBindings

/**
 * Everything one `[adapter.NAME]` warehouse block needs, sharing one token cache.
 * Fails with `NoWarehouseCredentials` while building, before any request is sent.
 */
export const layerFromAdapter = (
  adapterName: string,
  adapter: WarehouseAdapter,
  options: Client.WarehouseClientOptions = {}
): Layer.Layer<WarehouseServices, NoWarehouseCredentials, HttpClient.HttpClient> => {
  const auth = WarehouseAuth.layer(adapterName, adapter)
  const client = Client.layer(adapter, options).pipe(Layer.provideMerge(auth))
  const statements = Statements.layer.pipe(Layer.provideMerge(client))
  return Layer.mergeAll(Catalog.layer, Bindings.layer).pipe(Layer.provideMerge(statements))
}
