// Loaded only when ls, lineage or test runs (by the full bundle, and by the light entries of ls and lineage).
import { Effect, Option } from "effect"
import { UsageError } from "../commands/errors"
import { lsModels } from "../commands/listModels"
import { type LineageDirection, modelLineage } from "../commands/modelLineage"
import { inspectLayer } from "../layers/lightCommandLayers"
import { lineageText, lsText } from "../render/text/inspect"
import { LsOutput, ModelLineageOutput } from "../schemas/inspect"
import { type CommonOptions, globalOptions } from "./globalOptions"
import { emit } from "./output"

export interface LsOptions extends CommonOptions {
  readonly select: ReadonlyArray<string>
}

export const runLs = (opts: LsOptions) =>
  Effect.flatMap(lsModels(opts.select), (out) => emit(opts.output, LsOutput, out, lsText)).pipe(Effect.provide(inspectLayer(globalOptions(opts))))

export interface LineageOptions extends CommonOptions {
  readonly model: string
  readonly column: Option.Option<string>
  readonly upstream: boolean
  readonly downstream: boolean
  readonly depth: Option.Option<string>
}

const direction = (opts: LineageOptions): Effect.Effect<LineageDirection, UsageError> =>
  opts.upstream && opts.downstream
    ? Effect.fail(new UsageError({ detail: "--upstream conflicts with --downstream (give neither for both)" }))
    : Effect.succeed(opts.upstream ? "upstream" : opts.downstream ? "downstream" : "both")

export const runLineage = (opts: LineageOptions) =>
  Effect.gen(function* () {
    const out = yield* modelLineage({
      model: opts.model,
      column: Option.getOrUndefined(opts.column),
      direction: yield* direction(opts),
      depth: Option.getOrUndefined(opts.depth),
      useCache: true
    })
    yield* emit(opts.output, ModelLineageOutput, out, lineageText)
  }).pipe(Effect.provide(inspectLayer(globalOptions(opts))))
