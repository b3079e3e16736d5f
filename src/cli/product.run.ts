// Loaded only when a `pcli product` command runs.
import { Path } from "@effect/platform"
import { Effect, Either, Layer, Option } from "effect"
import { productApprove } from "../commands/productApprove"
import { productCompile } from "../commands/productCompile"
import { productJournal } from "../commands/productJournal"
import { productList } from "../commands/productList"
import { productStatus } from "../commands/productStatus"
import { productVerify, verifyExitCode } from "../commands/productVerify"
import {
  ProductApproveOutput,
  ProductCompileOutput,
  ProductJournalOutput,
  ProductListOutput,
  ProductStatusOutput,
  ProductVerifyOutput
} from "../schemas/products"
import { Environment } from "../services/Environment/Environment"
import * as LedgerSqlite from "../services/Ledger/sqlite"
import { findConfigFile, loadConfigFile } from "../services/ProjectConfig/ProjectConfig"
import { ModelsOutsideProject } from "../services/Products/errors"
import type { ProductProject } from "../services/Products/files"
import { isCanonicalRelative } from "../services/Products/manifest"
import { approveText, compileText, journalText, listText, statusText, verifyText } from "../services/Products/text"
import type { PolicySource } from "../services/Products/verify"
import { resolveStatePath } from "../services/StateStore/paths"
import * as StateStore from "../services/StateStore/StateStore"
import { setExitCode } from "./exitCode"
import type { CommonOptions } from "./options"
import { emit, writeStderr } from "./render"

type Named = CommonOptions & { readonly name: string }

/** Root, models directory, what verify sees of pcli.toml, and the state store path. */
const productContext = (common: CommonOptions) =>
  Effect.gen(function* () {
    const path = yield* Path.Path
    const env = yield* Environment
    const cwd = process.cwd()
    const file = Option.isSome(common.config) ? common.config : yield* findConfigFile(cwd)
    const loaded = Option.isNone(file) ? undefined : yield* Effect.either(loadConfigFile(file.value, env))
    const root = Option.isNone(file) ? cwd : path.dirname(path.resolve(file.value))
    const policy: PolicySource =
      loaded === undefined
        ? { kind: "missing" }
        : Either.isLeft(loaded)
          ? { kind: "invalid", detail: loaded.left.message }
          : { kind: "loaded", policy: loaded.right.config.policy, mask: loaded.right.config.mask, classifications: loaded.right.config.classifications }
    const modelsDir = Option.match(common.models, { onNone: () => path.join(root, "models"), onSome: (m) => path.resolve(m) })
    const modelsRel = path.relative(root, modelsDir).split(path.sep).join("/")
    if (!isCanonicalRelative(modelsRel)) return yield* new ModelsOutsideProject({ modelsDir, root })
    const namespaceConfig = loaded !== undefined && Either.isRight(loaded) ? loaded.right.config.state?.namespace : undefined
    const statePath = yield* resolveStatePath(
      {
        statePath: Option.getOrUndefined(common.statePath),
        namespaceFlag: Option.getOrUndefined(common.stateNamespace),
        namespaceConfig,
        modelsDir
      },
      path.join
    )
    const project: ProductProject = { root, modelsRel }
    // Commands other than verify/compile need a config that loads (it may name the store's namespace).
    const requireConfig = loaded !== undefined && Either.isLeft(loaded) ? Effect.fail(loaded.left) : Effect.void
    return { project, policy, statePath, requireConfig }
  })

const store = (statePath: string, mode: StateStore.StateStoreMode) => LedgerSqlite.layer.pipe(Layer.provideMerge(StateStore.layer(statePath, mode)))

export const runVerify = (opts: Named) =>
  Effect.gen(function* () {
    const ctx = yield* productContext(opts)
    const out = yield* productVerify({ project: ctx.project, name: opts.name, policy: ctx.policy })
    yield* emit(opts.output, ProductVerifyOutput, out, verifyText)
    yield* setExitCode(verifyExitCode(out.status))
  })

export const runCompile = (opts: Named) =>
  Effect.gen(function* () {
    const ctx = yield* productContext(opts)
    const out = yield* productCompile({ project: ctx.project, name: opts.name, policy: ctx.policy }).pipe(
      // The refusal's paste block is several lines: it goes to stderr ahead of the one-line error.
      Effect.tapErrorTag("VerifyNotPassed", (e) =>
        e.pasteBlock === undefined ? Effect.void : writeStderr(`paste this [policy] block into pcli.toml:\n\n${e.pasteBlock}\n`)
      ),
      Effect.provide(store(ctx.statePath, "read"))
    )
    yield* emit(opts.output, ProductCompileOutput, out, compileText)
  })

export const runApprove = (opts: Named) =>
  Effect.gen(function* () {
    const ctx = yield* productContext(opts)
    yield* ctx.requireConfig
    const out = yield* productApprove({ project: ctx.project, name: opts.name }).pipe(Effect.provide(store(ctx.statePath, "write")))
    yield* emit(opts.output, ProductApproveOutput, out, approveText)
  })

export const runStatus = (opts: Named) =>
  Effect.gen(function* () {
    const ctx = yield* productContext(opts)
    yield* ctx.requireConfig
    const out = yield* productStatus({ project: ctx.project, name: opts.name }).pipe(Effect.provide(store(ctx.statePath, "read")))
    yield* emit(opts.output, ProductStatusOutput, out, statusText)
  })

export const runList = (opts: CommonOptions) =>
  Effect.gen(function* () {
    const ctx = yield* productContext(opts)
    yield* ctx.requireConfig
    const out = yield* productList({ project: ctx.project }).pipe(Effect.provide(store(ctx.statePath, "read")))
    yield* emit(opts.output, ProductListOutput, out, listText)
  })

export const runJournal = (opts: Named) =>
  Effect.gen(function* () {
    const ctx = yield* productContext(opts)
    yield* ctx.requireConfig
    const out = yield* productJournal({ project: ctx.project, name: opts.name }).pipe(Effect.provide(store(ctx.statePath, "read")))
    yield* emit(opts.output, ProductJournalOutput, out, journalText)
  })
