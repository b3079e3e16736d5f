// The layers that need no state store: principal, project, config, policy engine, and the policy
// queries (check, show), whose SQLite ledger loads only when the store exists. Kept apart from
// ProjectLayer.ts (which re-exports them) so the light entries (src/light/) bundle no SQLite code.
import { FileSystem } from "@effect/platform"
import { Context, Effect, Layer, Option } from "effect"
import * as EmptyLedger from "../services/Ledger/empty"
import { Ledger } from "../services/Ledger/Ledger"
import { ModelAttributesSource } from "../services/PolicyEngine/attributes"
import * as PolicyEngine from "../services/PolicyEngine/PolicyEngine"
import { Principal, type PrincipalIdReserved, resolvePrincipal } from "../services/Principal/Principal"
import { refusalRow } from "../services/Plans/ledgerRows"
import { ProjectConfig } from "../services/ProjectConfig/ProjectConfig"
import { ProjectContext, type ProjectOptions, requireConfig, resolveProject } from "../services/ProjectConfig/ProjectContext"
import { makeModelAttributes } from "../services/Project/policyAttributes"

/** The global flags every surface resolves a project from. */
export interface GlobalOptions extends ProjectOptions {
  readonly principalId?: string | undefined
}

/**
 * Issue 32 item 7: claiming a reserved id is refused with one row in the project's store (never
 * under the claimed id). Best effort: a store that cannot be opened leaves the refusal unrecorded.
 */
const recordReserved = (options: GlobalOptions, error: PrincipalIdReserved) =>
  Effect.gen(function* () {
    const project = yield* resolveProject(options, false)
    if (Option.isNone(project.config)) return
    const [Sqlite, StateStore] = yield* Effect.promise(() => Promise.all([import("../services/Ledger/sqlite"), import("../services/StateStore/StateStore")]))
    const ledger = Context.get(yield* Layer.build(Sqlite.layer.pipe(Layer.provide(StateStore.layer(project.state, "write")))), Ledger)
    const actor = { class: error.principal, id: "unnamed", source: error.source }
    yield* ledger.append(refusalRow({ actor, principal: error.principal, capability: null, planId: null, error }))
  }).pipe(Effect.scoped, Effect.catchAllCause(() => Effect.void))

/** The acting principal, resolved before anything else so a bad PCLI_PRINCIPAL fails every command alike. */
const resolveRecorded = (options: GlobalOptions) =>
  resolvePrincipal(options.principalId).pipe(Effect.tapErrorTag("PrincipalIdReserved", (e) => recordReserved(options, e)))

export const principalLayer = (options: GlobalOptions) => Layer.effect(Principal, resolveRecorded(options))

/**
 * Where the project is (config, root, models, state path), read once. `needsProject`: commands
 * that build or write refuse a directory with neither pcli.toml nor models/.
 */
export const ProjectLayer = (options: GlobalOptions, needsProject = false) =>
  Layer.effect(ProjectContext, resolveProject(options, needsProject)).pipe(Layer.provideMerge(principalLayer(options)))

/** The policy engine's settings: the project's `[policy]` block and where its ledger is. */
const policySettings = (p: ProjectContext["Type"]): PolicyEngine.PolicySettings => {
  const config = Option.map(p.config, (l) => l.settings)
  return {
    configPresent: Option.isSome(p.config),
    policy: Option.flatMapNullable(config, (c) => c.policy).pipe(Option.getOrUndefined),
    mask: Option.flatMapNullable(config, (c) => c.mask).pipe(Option.getOrUndefined),
    classifications: Option.flatMapNullable(config, (c) => c.classifications).pipe(Option.getOrUndefined),
    ledger: { kind: "local", path: p.state.path },
    objectStoreUrl: Option.flatMapNullable(config, (c) => c.state?.object_store_url).pipe(Option.getOrUndefined)
  }
}

/** The policy engine over the project's `[policy]` block. */
export const policyLayer = Layer.unwrapEffect(Effect.map(ProjectContext, (p) => PolicyEngine.layer(policySettings(p))))

/**
 * The ledger alone, for reading: when the store does not exist yet (the case StateStore opens the
 * build's empty image for), the empty ledger, without loading SQLite; else the store's, opened for
 * reading (in the current scope), with the SQLite ledger and store loaded then.
 */
const readLedger = (state: ProjectContext["Type"]["state"]) =>
  Effect.gen(function* () {
    const stat = yield* Effect.option((yield* FileSystem.FileSystem).stat(state.path))
    if (Option.isNone(stat)) return EmptyLedger.emptyLedger
    const [Sqlite, StateStore] = yield* Effect.promise(() => Promise.all([import("../services/Ledger/sqlite"), import("../services/StateStore/StateStore")]))
    return Context.get(yield* Layer.build(Sqlite.layer.pipe(Layer.provide(StateStore.layer(state, "read")))), Ledger)
  })

/**
 * Policy queries that read only the ledger (check, show): the principal, the project, its ledger for
 * reading, the policy engine and model attributes, built in that order in one layer (as nested
 * layers they cost a start-up thousands of fiber steps for the same services).
 */
export const PolicyQueryLayer = (options: GlobalOptions) =>
  Layer.scopedContext(
    Effect.gen(function* () {
      const principal = yield* resolveRecorded(options)
      const project = yield* resolveProject(options, false)
      const ledger = yield* readLedger(project.state)
      const services = Context.make(Principal, principal).pipe(Context.add(ProjectContext, project), Context.add(Ledger, ledger))
      const engine = yield* PolicyEngine.make(policySettings(project)).pipe(Effect.provide(services))
      const attributes = yield* makeModelAttributes
      return services.pipe(Context.add(PolicyEngine.PolicyEngine, engine), Context.add(ModelAttributesSource, attributes))
    })
  )

/** Commands that need a pcli.toml (discover, validate): `config-not-found` without one. The principal first, in one layer. */
export const ConfigLayer = (options: GlobalOptions) =>
  Layer.effectContext(
    Effect.gen(function* () {
      const principal = yield* resolveRecorded(options)
      const config = yield* requireConfig(options)
      return Context.make(Principal, principal).pipe(Context.add(ProjectConfig, config))
    })
  )

/** Nothing project-bound (playground): only the principal, so a bad PCLI_PRINCIPAL still fails. */
export const BareLayer = (options: GlobalOptions) => principalLayer(options)
