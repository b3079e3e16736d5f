// Loaded only when a `pcli product` command runs.
import { Effect } from "effect"
import { productApprove } from "../commands/productApprove"
import { productCompile } from "../commands/productCompile"
import { productJournal } from "../commands/productJournal"
import { productList } from "../commands/productList"
import { productStatus } from "../commands/productStatus"
import { productVerify } from "../commands/productVerify"
import * as commandLayer from "../layers/commandLayers"
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
import { type CommonOptions, globalOptions } from "./options"
import { emit, writeStderr } from "./output"

type Named = CommonOptions & { readonly name: string }

export const runVerify = (opts: Named) =>
  Effect.gen(function* () {
    const out = yield* productVerify({ name: opts.name })
    yield* emit(opts.output, ProductVerifyOutput, out, verifyText)
    if (out.status === "needs_input") return yield* new ProductVerifyNeedsInput({ product: opts.name })
    if (out.status === "fail") return yield* new ProductVerifyFailed({ product: opts.name })
  }).pipe(Effect.provide(commandLayer.productRead(globalOptions(opts))))

export const runCompile = (opts: Named) =>
  Effect.gen(function* () {
    const out = yield* productCompile({ name: opts.name }).pipe(
      // The refusal's paste block is several lines: it goes to stderr ahead of the one-line error.
      Effect.tapErrorTag("VerifyNotPassed", (e) =>
        e.pasteBlock === undefined ? Effect.void : writeStderr(`paste this [policy] block into pcli.toml:\n\n${e.pasteBlock}\n`)
      )
    )
    yield* emit(opts.output, ProductCompileOutput, out, compileText)
  }).pipe(Effect.provide(commandLayer.productRead(globalOptions(opts))))

export const runApprove = (opts: Named) =>
  Effect.gen(function* () {
    const out = yield* productApprove({ name: opts.name })
    yield* emit(opts.output, ProductApproveOutput, out, approveText)
  }).pipe(Effect.provide(commandLayer.productWrite(globalOptions(opts))))

export const runStatus = (opts: Named) =>
  Effect.gen(function* () {
    const out = yield* productStatus({ name: opts.name })
    yield* emit(opts.output, ProductStatusOutput, out, statusText)
  }).pipe(Effect.provide(commandLayer.productRead(globalOptions(opts))))

export const runList = (opts: CommonOptions) =>
  Effect.gen(function* () {
    const out = yield* productList
    yield* emit(opts.output, ProductListOutput, out, listText)
  }).pipe(Effect.provide(commandLayer.productRead(globalOptions(opts))))

export const runJournal = (opts: Named) =>
  Effect.gen(function* () {
    const out = yield* productJournal({ name: opts.name })
    yield* emit(opts.output, ProductJournalOutput, out, journalText)
  }).pipe(Effect.provide(commandLayer.productRead(globalOptions(opts))))
