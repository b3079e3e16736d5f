import { Path } from "@effect/platform"
import { Effect, Either, Layer, Option } from "effect"
import * as LedgerSqlite from "../services/Ledger/sqlite"
import { Environment } from "../services/Environment/Environment"
import { ModelsOutsideProject } from "../services/Products/errors"
import { isCanonicalRelative } from "../services/Products/manifest"
import type { PolicySource } from "../services/Products/verify"
import { ProductWorkspace } from "../services/Products/workspace"
import { findConfigFile, loadConfigFile } from "../services/ProjectConfig/ProjectConfig"
import { resolveStateLocation } from "../services/StateStore/paths"
import * as StateStore from "../services/StateStore/StateStore"
import { principalLayer, type GlobalOptions } from "./ProjectLayer"

/** Root, models directory, what verify sees of pcli.toml, and the state store path. */
const resolveWorkspace = (options: GlobalOptions) =>
  Effect.gen(function* () {
    const path = yield* Path.Path
    const env = yield* Environment
    const file = options.config === undefined ? yield* findConfigFile(options.cwd) : Option.some(options.config)
    const loaded = Option.isNone(file) ? undefined : yield* Effect.either(loadConfigFile(file.value, env))
    const root = Option.isNone(file) ? options.cwd : path.dirname(path.resolve(options.cwd, file.value))
    const policy: PolicySource =
      loaded === undefined
        ? { kind: "missing" }
        : Either.isLeft(loaded)
          ? { kind: "invalid", detail: loaded.left.message }
          : { kind: "loaded", policy: loaded.right.config.policy, mask: loaded.right.config.mask, classifications: loaded.right.config.classifications }
    const modelsDir = options.models === undefined ? path.join(root, "models") : path.resolve(options.cwd, options.models)
    const modelsRel = path.relative(root, modelsDir).split(path.sep).join("/")
    if (!isCanonicalRelative(modelsRel)) return yield* new ModelsOutsideProject({ modelsDir, root })
    const settings = loaded !== undefined && Either.isRight(loaded) ? loaded.right.config.state : undefined
    const state = yield* resolveStateLocation(
      {
        statePath: options.statePath === undefined ? undefined : path.resolve(options.cwd, options.statePath),
        namespaceFlag: options.stateNamespace,
        namespaceConfig: settings?.namespace,
        modelsDir,
        urlEnv: env.PCLI_STATE_URL,
        urlConfig: settings?.url
      },
      path.join
    )
    const requireConfig = loaded !== undefined && Either.isLeft(loaded) ? Effect.fail(loaded.left) : Effect.void
    return { workspace: ProductWorkspace.of({ project: { root, modelsRel }, policy, requireConfig }), state }
  })

/** The product commands: their workspace, and the store (and ledger) opened in `mode`. */
export const ProductLayer = (options: GlobalOptions, mode: StateStore.StateStoreMode) =>
  Layer.unwrapEffect(
    Effect.map(resolveWorkspace(options), (r) =>
      Layer.succeed(ProductWorkspace, r.workspace).pipe(
        Layer.provideMerge(LedgerSqlite.layer.pipe(Layer.provideMerge(StateStore.layer(r.state, mode))))
      )
    )
  ).pipe(Layer.provideMerge(principalLayer(options)))

/** The product workspace alone, for a surface that already holds the store (`pcli serve`). */
export const ProductWorkspaceLayer = (options: GlobalOptions) => Layer.effect(ProductWorkspace, Effect.map(resolveWorkspace(options), (r) => r.workspace))
