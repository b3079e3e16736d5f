// Loaded only when plan, apply or rollback runs (review: review.run.ts).
import { Effect, Option } from "effect"
import { applyAnyPlan } from "../commands/applyPlan"
import { isGcApply } from "../commands/gcApply"
import { isRestoreApply } from "../commands/restoreApply"
import { gcApplyText, restoreApplyText } from "../render/text/reclaim"
import { GcApplyOutput, RestoreApplyOutput } from "../schemas/reclaim"
import { UsageError } from "../commands/errors"
import { planCreate } from "../commands/planCreate"
import { selectedModels } from "../commands/selectedModels"
import { planPromote, planRollback } from "../commands/promotePlan"
import { PromoteApplyOutput, PromotePlanOutput } from "../schemas/environment"
import { promoteApplyText, promotePlanText } from "../render/text/environment"
import * as commandLayer from "../layers/commandLayers"
import { ReportedFailure } from "../render/errors"
import { applyText, planText } from "../render/text/plans"
import { ApplyOutput, PlanOutput } from "../schemas/plans"
import { type CommonOptions, globalOptions } from "./options"
import { emit } from "./output"

export interface PlanOptions extends CommonOptions {
  readonly model: ReadonlyArray<string>
  readonly select: ReadonlyArray<string>
  readonly base: Option.Option<string>
  readonly promote: Option.Option<string>
}

export const runPlan = (opts: PlanOptions) =>
  Effect.gen(function* () {
    if (Option.isSome(opts.promote)) {
      if (opts.model.length > 0 || opts.select.length > 0 || Option.isSome(opts.base)) return yield* new UsageError({ detail: `--promote conflicts with ${opts.model.length > 0 ? "--model" : opts.select.length > 0 ? "--select" : "--base"}` })
      return yield* emit(opts.output, PromotePlanOutput, yield* planPromote(opts.promote.value), promotePlanText)
    }
    const out = yield* planCreate({ models: yield* selectedModels(opts.model, opts.select), base: Option.getOrUndefined(opts.base) })
    yield* emit(opts.output, PlanOutput, out, planText)
  }).pipe(Effect.provide(commandLayer.plan(globalOptions(opts))))

export interface ApplyOptions extends CommonOptions {
  readonly planId: string
  readonly target: Option.Option<string>
}

const emitApplied = (opts: CommonOptions, out: Effect.Effect.Success<ReturnType<typeof applyAnyPlan>>) =>
  Effect.gen(function* () {
    if ("command" in out && out.command === "promote_apply") return yield* emit(opts.output, PromoteApplyOutput, out, promoteApplyText)
    const applied = out as Exclude<typeof out, PromoteApplyOutput>
    if (isGcApply(applied)) return yield* emit(opts.output, GcApplyOutput, applied, gcApplyText)
    if (isRestoreApply(applied)) return yield* emit(opts.output, RestoreApplyOutput, applied, restoreApplyText)
    yield* emit(opts.output, ApplyOutput, applied, applyText)
    if (applied.run.status !== "success") {
      const failed = applied.run.models.filter((m) => m.status !== "success").length
      return yield* new ReportedFailure({ code: "run-failed", detail: `${failed} of ${applied.run.models.length} models did not build` })
    }
  })

/** `pcli rollback [--to <promote-plan>]`: writes the rollback plan, then applies it through the same gate as a promote. */
export const runRollback = (opts: CommonOptions & { readonly to: Option.Option<string> }) =>
  Effect.gen(function* () {
    const planId = yield* planRollback(Option.getOrUndefined(opts.to))
    yield* emitApplied(opts, yield* applyAnyPlan({ planId }))
  }).pipe(Effect.provide(commandLayer.apply(globalOptions(opts), undefined)))

export const runApply = (opts: ApplyOptions) =>
  Effect.gen(function* () {
    const out = yield* applyAnyPlan({ planId: opts.planId })
    yield* emitApplied(opts, out)
  }).pipe(Effect.provide(commandLayer.apply(globalOptions(opts), Option.getOrUndefined(opts.target))))
