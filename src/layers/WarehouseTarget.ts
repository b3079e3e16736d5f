import { FileSystem } from "@effect/platform"
import { Path } from "@effect/platform"
import type { NoWarehouseCredentials } from "../services/WarehouseAuth/errors"
import type { StatementFailed, Warehouse } from "../services/Warehouse/Warehouse"
import { Data, Effect, Layer, Option } from "effect"
import type { WarehouseAdapter } from "../schemas/adapters"
import * as Embedded from "../services/Warehouse/embedded"
import type { AdapterRef } from "../services/ProjectConfig/ProjectConfig"
import { ProjectContext } from "../services/ProjectConfig/ProjectContext"

export class AmbiguousWarehouse extends Data.TaggedError("AmbiguousWarehouse")<{ readonly adapters: ReadonlyArray<string> }> {
  readonly code = "ambiguous-warehouse"
  override get message() {
    return `several warehouse adapters (${this.adapters.join(", ")}): choose one with --target <adapter>`
  }
}

export class UnknownTarget extends Data.TaggedError("UnknownTarget")<{
  readonly target: string
  readonly known: ReadonlyArray<string>
}> {
  readonly code = "unknown-target"
  override get message() {
    return `--target ${this.target} is not a warehouse or embedded adapter (known: ${this.known.length === 0 ? "none" : this.known.join(", ")})`
  }
}

/** Only `Warehouse` is promised; the embedded layer also carries `DuckDb` for content-addressed models. */
type TargetLayer = Layer.Layer<Warehouse, StatementFailed | Embedded.WarehouseLocked | NoWarehouseCredentials, FileSystem.FileSystem | Path.Path>

/** The remote client is loaded only when a project targets a remote warehouse. */
const remoteLayer = (name: string, adapter: WarehouseAdapter): TargetLayer =>
  Layer.unwrapEffect(Effect.map(Effect.promise(() => import("../services/Warehouse/remote")), (m) => m.layerFromAdapter(name, adapter)))

/**
 * The execution target (decisions.md 6): `--target` names an adapter; else the one
 * `type = "warehouse"` adapter; else the embedded DuckDB (`[adapter.*] type = "embedded"` or the default path),
 * opened on first use when `lazy`.
 */
export const warehouseLayer = (target: Option.Option<string>, lazy = false, readOnly = false) =>
  Layer.unwrapEffect(
    Effect.gen(function* () {
      const project = yield* ProjectContext
      const path = yield* Path.Path
      const adapters = Option.match(project.config, { onNone: () => [], onSome: (c) => c.adapters })
      const targets = adapters.filter((a) => a.type === "warehouse" || a.type === "embedded")
      const fs = yield* FileSystem.FileSystem
      // A read command (pcli test) sees a warehouse file that does not exist as an empty warehouse, and creates none.
      const embeddedAt = (file: string | undefined, memoryLimit?: string): Effect.Effect<TargetLayer> =>
        Effect.gen(function* () {
          const at = path.resolve(project.root, file ?? Embedded.defaultEmbeddedPath)
          const absent = readOnly && !(yield* fs.exists(at).pipe(Effect.orElseSucceed(() => true)))
          return Embedded.layer(absent ? ":memory:" : at, { lazy, readOnly: readOnly && !absent, ...(memoryLimit === undefined ? {} : { memoryLimit }) })
        })
      // Only the chosen adapter's `${VAR}`s are resolved.
      const use = (ref: AdapterRef) =>
        Effect.flatMap(ref.resolve, (a) => (a.type === "warehouse" ? Effect.succeed(remoteLayer(ref.name, a)) : a.type === "embedded" ? embeddedAt(a.path, a.memory_limit) : embeddedAt(undefined)))
      if (Option.isSome(target)) {
        const chosen = targets.find((a) => a.name === target.value)
        if (chosen === undefined) return yield* new UnknownTarget({ target: target.value, known: targets.map((a) => a.name) })
        return yield* use(chosen)
      }
      const remotes = targets.filter((a) => a.type === "warehouse")
      if (remotes.length > 1) return yield* new AmbiguousWarehouse({ adapters: remotes.map((a) => a.name) })
      const chosen = remotes[0] ?? targets.find((a) => a.type === "embedded")
      return chosen === undefined ? yield* embeddedAt(undefined) : yield* use(chosen)
    })
  )
