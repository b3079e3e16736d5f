// Loaded only when backfill, gc or restore runs.
import { Effect, Option } from "effect"
import { backfillPlan, type BackfillInput, checkBackfillFlags } from "../commands/backfillPlan"
import { checkGcFlags, gcInventory, gcPlan } from "../commands/gcDerivable"
import { restoreTarget } from "../commands/restoreTarget"
import * as commandLayer from "../layers/commandLayers"
import { backfillText, gcInventoryText, gcPlanText, restorePlanText } from "../render/text/reclaim"
import { BackfillOutput, GcInventoryOutput, GcPlanOutput, RestorePlanOutput } from "../schemas/reclaim"
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
    const flags: BackfillInput = {
      models: opts.model,
      fromLastRun: opts.fromLastRun,
      from: Option.getOrUndefined(opts.from),
      to: Option.getOrUndefined(opts.to),
      noDownstream: opts.noDownstream
    }
    // Usage errors first: nothing is opened for a command line that cannot mean anything.
    yield* checkBackfillFlags(flags)
    yield* Effect.flatMap(backfillPlan(flags), (out) => emit(opts.output, BackfillOutput, out, backfillText)).pipe(Effect.provide(commandLayer.backfill(globalOptions(opts))))
  })

export interface GcOptions extends CommonOptions {
  readonly derivable: boolean
  readonly dryRun: boolean
  readonly minAgeDays: number
}

export const runGc = (opts: GcOptions) =>
  Effect.gen(function* () {
    const input = { derivable: opts.derivable, dryRun: opts.dryRun, minAgeDays: opts.minAgeDays }
    yield* checkGcFlags(input)
    const body = opts.dryRun
      ? Effect.flatMap(gcInventory(input), (out) => emit(opts.output, GcInventoryOutput, out, gcInventoryText))
      : Effect.flatMap(gcPlan(input), (out) => emit(opts.output, GcPlanOutput, out, gcPlanText))
    yield* body.pipe(Effect.provide((opts.dryRun ? commandLayer.gcDryRun : commandLayer.gc)(globalOptions(opts))))
  })

export interface RestoreOptions extends CommonOptions {
  readonly target: string
}

export const runRestore = (opts: RestoreOptions) =>
  Effect.flatMap(restoreTarget(opts.target), (out) => emit(opts.output, RestorePlanOutput, out, restorePlanText)).pipe(
    Effect.provide(commandLayer.restore(globalOptions(opts)))
  )
