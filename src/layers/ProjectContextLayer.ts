// The layers that need no state store and no policy: principal, project, config. Kept apart from
// ProjectLayer.ts (which re-exports them) so the light entries (src/light/) bundle no SQLite code, and
// from PolicyLayer.ts so the commands that read no policy (state info, audit, brief) load none of it.
import { Context, Effect, Layer, Option } from "effect"
import { Ledger } from "../services/Ledger/Ledger"
import { openLedgerAt } from "../services/Ledger/openAt"
import { Principal, type PrincipalIdReserved, resolvePrincipal } from "../services/Principal/Principal"
import { ProjectConfig } from "../services/ProjectConfig/ProjectConfig"
import { CompileCacheReads } from "../services/Project/cache/cacheReads"
import { ProjectContext, type ProjectOptions, requireConfig, resolveProject } from "../services/ProjectConfig/ProjectContext"

/** The global flags every surface resolves a project from. */
export interface GlobalOptions extends ProjectOptions {
  readonly principalId?: string | undefined
}

/**
 * Issue 32 item 7: claiming a reserved id is refused with one row in the project's store (never
 * under the claimed id). Best effort: a store that cannot be opened leaves the refusal unrecorded.
 * Loaded only on that refusal, so no command's start-up pays for the store here.
 */
const recordReserved = (options: GlobalOptions, error: PrincipalIdReserved) =>
  Effect.gen(function* () {
    const project = yield* resolveProject(options, false)
    if (Option.isNone(project.config)) return
    const { refusalRow } = yield* Effect.promise(() => import("../services/Plans/ledgerRows"))
    const ledger = Context.get(yield* openLedgerAt(project.state, "write"), Ledger)
    const actor = { class: error.principal, id: "unnamed", source: error.source }
    yield* ledger.append(refusalRow({ actor, principal: error.principal, capability: null, planId: null, error }))
  }).pipe(Effect.scoped, Effect.catchAllCause(() => Effect.void))

/** The acting principal; a reserved id's refusal is recorded. */
export const resolveRecorded = (options: GlobalOptions) =>
  resolvePrincipal(options.principalId).pipe(Effect.tapErrorTag("PrincipalIdReserved", (e) => recordReserved(options, e)))

/** The acting principal, resolved before anything else so a bad PCLI_PRINCIPAL fails every command alike. */
export const principalLayer = (options: GlobalOptions) => Layer.effect(Principal, resolveRecorded(options))

/**
 * Where the project is (config, root, models, state path), read once. `needsProject`: commands
 * that build or write refuse a directory with neither pcli.toml nor models/.
 */
export const ProjectLayer = (options: GlobalOptions, needsProject = false) =>
  projectContextLayer(resolveProject(options, needsProject), false).pipe(Layer.provideMerge(principalLayer(options)))

/**
 * `ProjectLayer` for the commands that build or gate (run, plan, apply, backfill, gc, MCP): under
 * `[policy]` they compile from the files, never the compile cache an agent can write (decisions.md 33).
 */
export const GatedProjectLayer = (options: GlobalOptions) =>
  projectContextLayer(resolveProject(options, true), true).pipe(Layer.provideMerge(principalLayer(options)))

/** The resolved project; with `gated`, a project with `[policy]` compiles without reading the compile cache. */
export const projectContextLayer = <E, R>(resolved: Effect.Effect<ProjectContext["Type"], E, R>, gated: boolean) =>
  Layer.effectContext(
    Effect.map(resolved, (project) =>
      Context.make(ProjectContext, project).pipe(
        Context.add(CompileCacheReads, !gated || Option.isNone(project.config) || project.config.value.settings.policy === undefined)
      )
    )
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
