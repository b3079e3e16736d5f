// The layers that need no state store and no policy: principal, project, config. Kept apart from
// ProjectLayer.ts (which re-exports them) so the light entries (src/light/) bundle no SQLite code, and
// from PolicyLayer.ts so the commands that read no policy (state info, audit, brief) load none of it.
import { Context, Effect, Layer } from "effect"
import { Principal, resolvePrincipal } from "../services/Principal/Principal"
import { ProjectConfig } from "../services/ProjectConfig/ProjectConfig"
import { ProjectContext, type ProjectOptions, requireConfig, resolveProject } from "../services/ProjectConfig/ProjectContext"

/** The global flags every surface resolves a project from. */
export interface GlobalOptions extends ProjectOptions {
  readonly principalId?: string | undefined
}

/** The acting principal, resolved before anything else so a bad PCLI_PRINCIPAL fails every command alike. */
export const principalLayer = (options: GlobalOptions) => Layer.effect(Principal, resolvePrincipal(options.principalId))

/**
 * Where the project is (config, root, models, state path), read once. `needsProject`: commands
 * that build or write refuse a directory with neither pcli.toml nor models/.
 */
export const ProjectLayer = (options: GlobalOptions, needsProject = false) =>
  Layer.effect(ProjectContext, resolveProject(options, needsProject)).pipe(Layer.provideMerge(principalLayer(options)))

/** Commands that need a pcli.toml (discover, validate): `config-not-found` without one. The principal first, in one layer. */
export const ConfigLayer = (options: GlobalOptions) =>
  Layer.effectContext(
    Effect.gen(function* () {
      const principal = yield* resolvePrincipal(options.principalId)
      const config = yield* requireConfig(options)
      return Context.make(Principal, principal).pipe(Context.add(ProjectConfig, config))
    })
  )

/** Nothing project-bound (playground): only the principal, so a bad PCLI_PRINCIPAL still fails. */
export const BareLayer = (options: GlobalOptions) => principalLayer(options)
