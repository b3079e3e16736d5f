// The layers that need no state store: principal, project, config, policy engine, and the policy
// queries (check, show), whose SQLite ledger loads only when the store exists. Kept apart from
// ProjectLayer.ts (which re-exports them) so the light entries (src/light/) bundle no SQLite code.
import { FileSystem } from "@effect/platform"
import { Effect, Layer, Option } from "effect"
import * as EmptyLedger from "../services/Ledger/empty"
import * as PolicyEngine from "../services/PolicyEngine/PolicyEngine"
import { Principal, resolvePrincipal } from "../services/Principal/Principal"
import { ProjectConfig } from "../services/ProjectConfig/ProjectConfig"
import { ProjectContext, type ProjectOptions, requireConfig, resolveProject } from "../services/ProjectConfig/ProjectContext"
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

/**
 * The ledger alone, for reading: when the store does not exist yet (the case StateStore opens the
 * build's empty image for), the empty ledger, without loading SQLite; else the store's, opened for
 * reading, with the SQLite ledger and store loaded then.
 */
const ledgerReadLayer = Layer.unwrapEffect(
  Effect.gen(function* () {
    const p = yield* ProjectContext
    const stat = yield* Effect.option((yield* FileSystem.FileSystem).stat(p.state.path))
    if (Option.isNone(stat)) return EmptyLedger.emptyLayer
    const [Ledger, StateStore] = yield* Effect.promise(() => Promise.all([import("../services/Ledger/sqlite"), import("../services/StateStore/StateStore")]))
    return Ledger.layer.pipe(Layer.provide(StateStore.layer(p.state, "read")))
  })
)

/** Policy queries that read only the ledger (check, show): policy and model attributes over ledgerReadLayer. */
export const PolicyQueryLayer = (options: GlobalOptions) =>
  Layer.mergeAll(policyLayer, modelAttributesLayer).pipe(Layer.provideMerge(ledgerReadLayer), Layer.provideMerge(ProjectLayer(options)))

/** Commands that need a pcli.toml (discover, validate): `config-not-found` without one. */
export const ConfigLayer = (options: GlobalOptions) =>
  Layer.effect(ProjectConfig, requireConfig(options)).pipe(Layer.provideMerge(principalLayer(options)))

/** Nothing project-bound (playground): only the principal, so a bad PCLI_PRINCIPAL still fails. */
export const BareLayer = (options: GlobalOptions) => principalLayer(options)
