// Loaded only when a `pcli product` command runs.
import { Effect } from "effect"
import { productApprove } from "../commands/productApprove"
import { productCompile } from "../commands/productCompile"
import { productJournal } from "../commands/productJournal"
import { productList } from "../commands/productList"
import { productStatus } from "../commands/productStatus"
import { productVerify } from "../commands/productVerify"
import { ProductLayer } from "../layers/ProductLayer"
import { ProductVerifyFailed, ProductVerifyNeedsInput } from "../render/errors"
import {
  ProductApproveOutput,
  ProductCompileOutput,
  ProductJournalOutput,
  ProductListOutput,
  ProductStatusOutput,
  ProductVerifyOutput
} from "../schemas/products"
import { approveText, compileText, journalText, listText, statusText, verifyText } from "../render/text/products"
import { ProductWorkspace } from "../services/Products/workspace"
import { type CommonOptions, globalOptions } from "./options"
import { emit, writeStderr } from "./output"

type Named = CommonOptions & { readonly name: string }

export const runVerify = (opts: Named) =>
  Effect.gen(function* () {
    const ws = yield* ProductWorkspace
    const out = yield* productVerify({ project: ws.project, name: opts.name, policy: ws.policy })
    yield* emit(opts.output, ProductVerifyOutput, out, verifyText)
    if (out.status === "needs_input") return yield* new ProductVerifyNeedsInput({ product: opts.name })
    if (out.status === "fail") return yield* new ProductVerifyFailed({ product: opts.name })
  }).pipe(Effect.provide(ProductLayer(globalOptions(opts), "read")))

export const runCompile = (opts: Named) =>
  Effect.gen(function* () {
    const ws = yield* ProductWorkspace
    const out = yield* productCompile({ project: ws.project, name: opts.name, policy: ws.policy }).pipe(
      // The refusal's paste block is several lines: it goes to stderr ahead of the one-line error.
      Effect.tapErrorTag("VerifyNotPassed", (e) =>
        e.pasteBlock === undefined ? Effect.void : writeStderr(`paste this [policy] block into pcli.toml:\n\n${e.pasteBlock}\n`)
      )
    )
    yield* emit(opts.output, ProductCompileOutput, out, compileText)
  }).pipe(Effect.provide(ProductLayer(globalOptions(opts), "read")))

export const runApprove = (opts: Named) =>
  Effect.gen(function* () {
    const ws = yield* ProductWorkspace
    yield* ws.requireConfig
    const out = yield* productApprove({ project: ws.project, name: opts.name })
    yield* emit(opts.output, ProductApproveOutput, out, approveText)
  }).pipe(Effect.provide(ProductLayer(globalOptions(opts), "write")))

export const runStatus = (opts: Named) =>
  Effect.gen(function* () {
    const ws = yield* ProductWorkspace
    yield* ws.requireConfig
    const out = yield* productStatus({ project: ws.project, name: opts.name })
    yield* emit(opts.output, ProductStatusOutput, out, statusText)
  }).pipe(Effect.provide(ProductLayer(globalOptions(opts), "read")))

export const runList = (opts: CommonOptions) =>
  Effect.gen(function* () {
    const ws = yield* ProductWorkspace
    yield* ws.requireConfig
    const out = yield* productList({ project: ws.project })
    yield* emit(opts.output, ProductListOutput, out, listText)
  }).pipe(Effect.provide(ProductLayer(globalOptions(opts), "read")))

export const runJournal = (opts: Named) =>
  Effect.gen(function* () {
    const ws = yield* ProductWorkspace
    yield* ws.requireConfig
    const out = yield* productJournal({ project: ws.project, name: opts.name })
    yield* emit(opts.output, ProductJournalOutput, out, journalText)
  }).pipe(Effect.provide(ProductLayer(globalOptions(opts), "read")))
