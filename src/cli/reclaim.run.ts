// Loaded only when backfill, gc or restore runs.
import { Effect, Option } from "effect"
import { backfillPlan, type BackfillInput, checkBackfillFlags } from "../commands/backfillPlan"
import { BackfillLayer } from "../layers/ReclaimLayer"
import { backfillText } from "../render/text/reclaim"
import { BackfillOutput } from "../schemas/reclaim"
import { ProjectContext } from "../services/ProjectConfig/ProjectContext"
import { type CommonOptions, globalOptions } from "./options"
import { emit } from "./output"

export interface BackfillOptions extends CommonOptions {
  readonly model: ReadonlyArray<string>
  readonly fromLastRun: boolean
  readonly from: Option.Option<string>
  readonly to: Option.Option<string>
  readonly noDownstream: boolean
}

export const runBackfill = (opts: BackfillOptions) =>
  Effect.gen(function* () {
    const flags: Omit<BackfillInput, "modelsDir"> = {
      models: opts.model,
      fromLastRun: opts.fromLastRun,
      from: Option.getOrUndefined(opts.from),
      to: Option.getOrUndefined(opts.to),
      noDownstream: opts.noDownstream
    }
    // Usage errors first: nothing is opened for a command line that cannot mean anything.
    yield* checkBackfillFlags({ ...flags, modelsDir: "" })
    yield* Effect.gen(function* () {
      const { modelsDir } = yield* ProjectContext
      const out = yield* backfillPlan({ ...flags, modelsDir })
      yield* emit(opts.output, BackfillOutput, out, backfillText)
    }).pipe(Effect.provide(BackfillLayer(globalOptions(opts))))
  })
