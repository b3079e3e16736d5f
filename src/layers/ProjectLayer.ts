import { FileSystem } from "@effect/platform"
import { Effect, Layer, Option } from "effect"
import * as Digest from "../services/Digest/DigestStore"
import * as EmptyLedger from "../services/Ledger/empty"
import * as Ledger from "../services/Ledger/sqlite"
import * as PolicyEngine from "../services/PolicyEngine/PolicyEngine"
import { Principal, resolvePrincipal } from "../services/Principal/Principal"
import { ProjectConfig } from "../services/ProjectConfig/ProjectConfig"
import { ProjectContext, type ProjectOptions, requireConfig, resolveProject } from "../services/ProjectConfig/ProjectContext"
import * as StateStore from "../services/StateStore/StateStore"
import { modelAttributesLayer } from "./ModelAttributes"

/** The global flags every surface resolves a project from. */
export interface GlobalOptions extends ProjectOptions {
  readonly principalId?: string | undefined
}

/** The acting principal, resolved before anything else so a bad PCLI_PRINCIPAL fails every command alike. */
export const principalLayer = (options: GlobalOptions) => Layer.effect(Principal, resolvePrincipal(Option.fromNullable(options.principalId)))

/**
 * Where the project is (config, root, models, state path), read once. `needsProject`: commands
 * that build or write refuse a directory with neither pcli.toml nor models/.
 */
export const ProjectLayer = (options: GlobalOptions, needsProject = false) =>
  Layer.effect(ProjectContext, resolveProject(options, needsProject)).pipe(Layer.provideMerge(principalLayer(options)))

/** SqlClient + StateStore + Ledger (+ the brief's reads) over the resolved project's store. */
export const stateLayer = (mode: StateStore.StateStoreMode) =>
  Layer.unwrapEffect(
    Effect.map(ProjectContext, (p) => Layer.mergeAll(Ledger.layer, Digest.layer).pipe(Layer.provideMerge(StateStore.layer(p.state, mode))))
  )

/** The policy engine over the project's `[policy]` block. */
export const policyLayer = Layer.unwrapEffect(
  Effect.map(ProjectContext, (p) => {
    const config = Option.map(p.config, (l) => l.settings)
    return PolicyEngine.layer({
      configPresent: Option.isSome(p.config),
      policy: Option.flatMapNullable(config, (c) => c.policy).pipe(Option.getOrUndefined),
      mask: Option.flatMapNullable(config, (c) => c.mask).pipe(Option.getOrUndefined),
      classifications: Option.flatMapNullable(config, (c) => c.classifications).pipe(Option.getOrUndefined),
      ledger: { kind: "local", path: p.state.path },
      objectStoreUrl: Option.flatMapNullable(config, (c) => c.state?.object_store_url).pipe(Option.getOrUndefined)
    })
  })
)

const governed = (mode: StateStore.StateStoreMode) =>
  Layer.mergeAll(policyLayer, modelAttributesLayer).pipe(Layer.provideMerge(stateLayer(mode)))

/** Read commands over the state store (state info): never create or write it. */
export const StateReadLayer = (options: GlobalOptions) => stateLayer("read").pipe(Layer.provideMerge(ProjectLayer(options)))

/** A command's one write to an existing store (brief's cursor). */
export const StateWriteLayer = (options: GlobalOptions) => stateLayer("write").pipe(Layer.provideMerge(ProjectLayer(options)))

/** Policy reads (show, check, test): policy, model attributes, the store opened for reading. */
export const PolicyReadLayer = (options: GlobalOptions) => governed("read").pipe(Layer.provideMerge(ProjectLayer(options)))

/**
 * The ledger alone, for reading: when the store does not exist yet (the case StateStore opens the
 * build's empty image for), the empty ledger, without loading SQLite; else the store's, opened for reading.
 */
const ledgerReadLayer = Layer.unwrapEffect(
  Effect.gen(function* () {
    const p = yield* ProjectContext
    const stat = yield* Effect.option((yield* FileSystem.FileSystem).stat(p.state.path))
    return Option.isNone(stat) ? EmptyLedger.emptyLayer : Ledger.layer.pipe(Layer.provide(StateStore.layer(p.state, "read")))
  })
)

/** Policy queries that read only the ledger (check, show): policy and model attributes over ledgerReadLayer. */
export const PolicyQueryLayer = (options: GlobalOptions) =>
  Layer.mergeAll(policyLayer, modelAttributesLayer).pipe(Layer.provideMerge(ledgerReadLayer), Layer.provideMerge(ProjectLayer(options)))

/** Policy writes (freeze, unfreeze): the same services over a store opened for writing. */
export const PolicyWriteLayer = (options: GlobalOptions) => governed("write").pipe(Layer.provideMerge(ProjectLayer(options)))

/** Commands that need a pcli.toml (discover, validate): `config-not-found` without one. */
export const ConfigLayer = (options: GlobalOptions) =>
  Layer.effect(ProjectConfig, requireConfig(options)).pipe(Layer.provideMerge(principalLayer(options)))

/** Nothing project-bound (playground): only the principal, so a bad PCLI_PRINCIPAL still fails. */
export const BareLayer = (options: GlobalOptions) => principalLayer(options)

/** `pcli serve`: the read services over a store opened read-only (never migrated, never written). */
export const ReadOnlyLayer = (options: GlobalOptions) => governed("server").pipe(Layer.provideMerge(ProjectLayer(options)))
