import { Path } from "@effect/platform"
import { Context, Effect, Layer, Option } from "effect"
import * as Ledger from "../services/Ledger/sqlite"
import * as ProjectConfig from "../services/ProjectConfig/ProjectConfig"
import { Principal, resolvePrincipal } from "../services/Principal/Principal"
import { resolveStatePath } from "../services/StateStore/paths"
import * as StateStore from "../services/StateStore/StateStore"
import type { CommonOptions } from "./options"

/** Where a command's project is: its config (if any), root, models directory and state store. */
export interface ResolvedProject {
  readonly config: Option.Option<ProjectConfig.LoadedConfig>
  /** The directory of pcli.toml, or the working directory without one. */
  readonly root: string
  readonly modelsDir: string
  readonly statePath: string
}

export class ProjectContext extends Context.Tag("pcli/cli/ProjectContext")<ProjectContext, ResolvedProject>() {}

const configLocation = (common: CommonOptions): ProjectConfig.ConfigLocation => ({
  explicit: common.config,
  cwd: process.cwd()
})

/** The project config; commands that need one fail with `config-not-found` without it. */
export const configLayer = (common: CommonOptions) => ProjectConfig.layer(configLocation(common))

/** The config when there is one: state, policy and pipeline commands work without a pcli.toml. */
const optionalConfig = (common: CommonOptions) =>
  ProjectConfig.load(configLocation(common)).pipe(
    Effect.map(Option.some),
    Effect.catchTag("ConfigNotFound", () => Effect.succeed(Option.none<ProjectConfig.LoadedConfig>()))
  )

/** Reads pcli.toml once and resolves the paths every other layer of the command uses. */
export const projectLayer = (common: CommonOptions) =>
  Layer.effect(
    ProjectContext,
    Effect.gen(function* () {
      const path = yield* Path.Path
      const config = yield* optionalConfig(common)
      const root = Option.match(config, { onNone: () => process.cwd(), onSome: (c) => c.root })
      // An explicit --models is relative to the working directory; the default sits beside pcli.toml.
      const modelsDir = Option.match(common.models, {
        onNone: () => path.join(root, "models"),
        onSome: (m) => path.resolve(m)
      })
      const statePath = yield* resolveStatePath(
        {
          statePath: Option.getOrUndefined(common.statePath),
          namespaceFlag: Option.getOrUndefined(common.stateNamespace),
          namespaceConfig: Option.flatMapNullable(config, (c) => c.config.state?.namespace).pipe(Option.getOrUndefined),
          modelsDir
        },
        path.join
      )
      return { config, root, modelsDir, statePath }
    })
  )

/** SqlClient + StateStore + Ledger for a command of the given mode (needs ProjectContext). */
export const stateLayer = (mode: StateStore.StateStoreMode) =>
  Layer.unwrapEffect(
    Effect.map(ProjectContext, (p) => Ledger.layer.pipe(Layer.provideMerge(StateStore.layer(p.statePath, mode))))
  )

/**
 * Runs a command's body with the acting principal resolved first, so an invalid
 * PCLI_PRINCIPAL or --principal-id fails every command the same way.
 */
export const withPrincipal = <A, E, R>(common: CommonOptions, body: Effect.Effect<A, E, R>) =>
  Effect.flatMap(resolvePrincipal(common.principalId), (principal) => Effect.provideService(body, Principal, principal))

/** Provides a command's layers, with the resolved project (read once) under them. */
export const withProject =
  <ROut, E, RIn>(common: CommonOptions, layer: Layer.Layer<ROut, E, RIn>) =>
  <A, E2, R>(body: Effect.Effect<A, E2, R>) =>
    Effect.provide(body, Layer.provideMerge(layer, projectLayer(common)))
