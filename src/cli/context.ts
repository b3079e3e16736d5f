import { Path } from "@effect/platform"
import { Effect, Layer, Option } from "effect"
import * as Ledger from "../services/Ledger/sqlite"
import * as ProjectConfig from "../services/ProjectConfig/ProjectConfig"
import { Principal, resolvePrincipal } from "../services/Principal/Principal"
import { resolveStatePath } from "../services/StateStore/paths"
import * as StateStore from "../services/StateStore/StateStore"
import type { CommonOptions } from "./options"

const configLocation = (common: CommonOptions): ProjectConfig.ConfigLocation => ({
  explicit: common.config,
  cwd: process.cwd()
})

/** The project config; commands that need one fail with `config-not-found` without it. */
export const configLayer = (common: CommonOptions) => ProjectConfig.layer(configLocation(common))

/** The config when there is one: state commands work in a directory with no pcli.toml. */
export const optionalConfig = (common: CommonOptions) =>
  ProjectConfig.load(configLocation(common)).pipe(
    Effect.map(Option.some),
    Effect.catchTag("ConfigNotFound", () => Effect.succeed(Option.none<ProjectConfig.LoadedConfig>()))
  )

export const principalLayer = (common: CommonOptions) => Layer.effect(Principal, resolvePrincipal(common.principalId))

/** State store path per decisions.md item 4, from flags and `[state] namespace`. */
export const statePath = (common: CommonOptions) =>
  Effect.gen(function* () {
    const path = yield* Path.Path
    const config = yield* optionalConfig(common)
    return yield* resolveStatePath(
      {
        statePath: Option.getOrUndefined(common.statePath),
        namespaceFlag: Option.getOrUndefined(common.stateNamespace),
        namespaceConfig: Option.flatMapNullable(config, (c) => c.config.state?.namespace).pipe(Option.getOrUndefined),
        modelsDir: common.models
      },
      path.join
    )
  })

/** SqlClient + StateStore + Ledger for a command of the given mode. */
export const stateLayer = (common: CommonOptions, mode: StateStore.StateStoreMode) =>
  Layer.unwrapEffect(Effect.map(statePath(common), (p) => Ledger.layer.pipe(Layer.provideMerge(StateStore.layer(p, mode)))))

/**
 * Runs a command's body with the acting principal resolved first, so an invalid
 * PCLI_PRINCIPAL or --principal-id fails every command the same way.
 */
export const withPrincipal = <A, E, R>(common: CommonOptions, body: Effect.Effect<A, E, R>) =>
  Effect.flatMap(resolvePrincipal(common.principalId), (principal) => Effect.provideService(body, Principal, principal))
