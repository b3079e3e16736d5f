import { FileSystem, Path } from "@effect/platform"
import { Context, Effect, Option } from "effect"
import { Environment } from "../Environment/Environment"
import { resolveStateLocation } from "../StateStore/paths"
import type { StateLocation } from "../StateStore/StateStore"
import * as ProjectConfig from "./ProjectConfig"

/** The global flags that locate a project (plain values: every surface fills them its own way). */
export interface ProjectOptions {
  readonly cwd: string
  readonly config?: string | undefined
  readonly models?: string | undefined
  readonly statePath?: string | undefined
  readonly stateNamespace?: string | undefined
}

/** Where a command's project is: its config (if any), root, models directory and state store. */
export interface ResolvedProject {
  /** Adapters resolve on use: a `${VAR}` of an adapter the command does not use is never needed. */
  readonly config: Option.Option<ProjectConfig.LazyConfig>
  /** The directory of pcli.toml, or the working directory without one. */
  readonly root: string
  readonly modelsDir: string
  readonly state: StateLocation
}

export class ProjectContext extends Context.Tag("pcli/ProjectContext")<ProjectContext, ResolvedProject>() {}

const location = (options: ProjectOptions): ProjectConfig.ConfigLocation => ({
  explicit: Option.fromNullable(options.config),
  cwd: options.cwd
})

/** The project config; commands that need one fail with `config-not-found` without it. */
export const requireConfig = (options: ProjectOptions) => ProjectConfig.load(location(options))

/** The config when there is one: state, policy and pipeline commands work without a pcli.toml. */
const optionalConfig = (options: ProjectOptions) =>
  ProjectConfig.loadLazy(location(options)).pipe(
    Effect.map(Option.some),
    Effect.catchTag("ConfigNotFound", () => Effect.succeed(Option.none<ProjectConfig.LazyConfig>()))
  )

/**
 * Reads pcli.toml once and resolves every path the command's services use. With `needsProject`
 * (commands that build or write), a directory with neither pcli.toml nor models/ is `config-not-found`.
 */
export const resolveProject = (options: ProjectOptions, needsProject: boolean) =>
  Effect.gen(function* () {
    const path = yield* Path.Path
    const fs = yield* FileSystem.FileSystem
    const config = yield* optionalConfig(options)
    const root = Option.match(config, { onNone: () => options.cwd, onSome: (c) => c.root })
    // An explicit --models is relative to the working directory; the default sits beside pcli.toml.
    const modelsDir = options.models === undefined ? path.join(root, "models") : path.resolve(options.cwd, options.models)
    if (needsProject && Option.isNone(config) && !(yield* fs.exists(modelsDir).pipe(Effect.orElseSucceed(() => false)))) {
      return yield* new ProjectConfig.ConfigNotFound({ searched: options.cwd })
    }
    const env = yield* Environment
    const state = yield* resolveStateLocation(
      {
        statePath: options.statePath === undefined ? undefined : path.resolve(options.cwd, options.statePath),
        namespaceFlag: options.stateNamespace,
        namespaceConfig: Option.flatMapNullable(config, (c) => c.settings.state?.namespace).pipe(Option.getOrUndefined),
        modelsDir,
        urlEnv: env.PCLI_STATE_URL,
        urlConfig: Option.flatMapNullable(config, (c) => c.settings.state?.url).pipe(Option.getOrUndefined)
      },
      path.join
    )
    const project: ResolvedProject = { config, root, modelsDir, state }
    return project
  })
