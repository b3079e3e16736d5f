import { Context, Effect, Layer } from "effect"
import { Bindings, type BindingType, CatalogInfo, type WorkspaceBinding } from "../../schemas/warehouse-api"
import { type WarehouseCallError, WarehouseClient } from "./WarehouseClient"

export interface BindingChanges {
  readonly add: ReadonlyArray<WorkspaceBinding>
  readonly remove: ReadonlyArray<number>
}

export interface WarehouseBindingsService {
  readonly list: (catalog: string) => Effect.Effect<ReadonlyArray<WorkspaceBinding>, WarehouseCallError>
  /** One PATCH carrying every change; empty lists are omitted. */
  readonly update: (catalog: string, changes: BindingChanges) => Effect.Effect<ReadonlyArray<WorkspaceBinding>, WarehouseCallError>
  /** Brings the catalog's bindings to exactly `desired` with at most one PATCH; returns what changed. */
  readonly reconcile: (
    catalog: string,
    desired: ReadonlyArray<WorkspaceBinding>
  ) => Effect.Effect<BindingChanges, WarehouseCallError>
  /** `PATCH /api/2.1/unity-catalog/catalogs/{catalog}` with `{"isolation_mode":"ISOLATED"}`. */
  readonly isolate: (catalog: string) => Effect.Effect<CatalogInfo, WarehouseCallError>
}

export class WarehouseBindings extends Context.Tag("pcli/WarehouseBindings")<WarehouseBindings, WarehouseBindingsService>() {}

/** `[adapter] binding_type = "READ_WRITE" | "READ_ONLY"` on the wire. */
export const bindingTypeOf = (configured: "READ_WRITE" | "READ_ONLY"): BindingType =>
  configured === "READ_ONLY" ? "BINDING_TYPE_READ_ONLY" : "BINDING_TYPE_READ_WRITE"

const bindingsPath = (catalog: string) => `/api/2.1/unity-catalog/bindings/catalog/${encodeURIComponent(catalog)}`

/** Adds what is missing or has another binding type; removes what is not desired. */
export const diffBindings = (
  current: ReadonlyArray<WorkspaceBinding>,
  desired: ReadonlyArray<WorkspaceBinding>
): BindingChanges => {
  const now = new Map(current.map((b) => [b.workspace_id, b.binding_type]))
  const wanted = new Set(desired.map((b) => b.workspace_id))
  return {
    add: desired.filter((b) => now.get(b.workspace_id) !== b.binding_type),
    remove: current.filter((b) => !wanted.has(b.workspace_id)).map((b) => b.workspace_id)
  }
}

export const make = Effect.gen(function* () {
  const client = yield* WarehouseClient

  const list = (catalog: string) =>
    client.call({ method: "GET", path: bindingsPath(catalog) }, Bindings).pipe(Effect.map((b) => b.bindings))

  const update = (catalog: string, changes: BindingChanges) =>
    client
      .call(
        {
          method: "PATCH",
          path: bindingsPath(catalog),
          body: {
            ...(changes.add.length === 0 ? {} : { add: changes.add }),
            ...(changes.remove.length === 0 ? {} : { remove: changes.remove.map((workspace_id) => ({ workspace_id })) })
          }
        },
        Bindings
      )
      .pipe(Effect.map((b) => b.bindings))

  const reconcile = (catalog: string, desired: ReadonlyArray<WorkspaceBinding>) =>
    Effect.gen(function* () {
      const changes = diffBindings(yield* list(catalog), desired)
      if (changes.add.length > 0 || changes.remove.length > 0) yield* update(catalog, changes)
      return changes
    })

  const isolate = (catalog: string) =>
    client.call(
      {
        method: "PATCH",
        path: `/api/2.1/unity-catalog/catalogs/${encodeURIComponent(catalog)}`,
        body: { isolation_mode: "ISOLATED" }
      },
      CatalogInfo
    )

  return WarehouseBindings.of({ list, update, reconcile, isolate })
})

export const layer: Layer.Layer<WarehouseBindings, never, WarehouseClient> = Layer.effect(WarehouseBindings, make)

