// Loaded only when plan, review or apply runs.
import { Effect, Option } from "effect"
import { applyAnyPlan } from "../commands/applyPlan"
import { isGcApply } from "../commands/gcApply"
import { isRestoreApply } from "../commands/restoreApply"
import { gcApplyText, restoreApplyText } from "../render/text/reclaim"
import { GcApplyOutput, RestoreApplyOutput } from "../schemas/reclaim"
import { UsageError } from "../commands/errors"
import { planCreate } from "../commands/planCreate"
import { planList } from "../commands/planList"
import { selectedModels } from "../commands/selectedModels"
import { planPromote, planRollback } from "../commands/promotePlan"
import { PromoteApplyOutput, PromotePlanOutput } from "../schemas/environment"
import { promoteApplyText, promotePlanText } from "../render/text/environment"
import { approvePlan, reviewPlan, reviewQueue, reviewStatus } from "../commands/reviewPlan"
import * as commandLayer from "../layers/commandLayers"
import { ReportedFailure } from "../render/errors"
import { applyText, planListText, planText, queueText, reviewStatusText, reviewText } from "../render/text/plans"
import { ApplyOutput, PlanListOutput, PlanOutput, ReviewOutput, ReviewQueueOutput, ReviewStatusOutput } from "../schemas/plans"
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

export interface ReviewOptions extends CommonOptions {
  readonly planId: Option.Option<string>
  readonly queue: boolean
  readonly list: boolean
  readonly base: Option.Option<string>
  readonly approve: boolean
  readonly status: boolean
}

/** The four forms of `pcli review`; conflicting flags are usage errors (exit 2). */
const reviewForm = (opts: ReviewOptions) => {
  if (opts.list) {
    const other = Option.isSome(opts.planId) ? "a plan id" : opts.queue ? "--queue" : opts.approve ? "--approve" : opts.status ? "--status" : Option.isSome(opts.base) ? "--base" : undefined
    return other === undefined ? Effect.succeed({ form: "list" as const }) : Effect.fail(new UsageError({ detail: `--list conflicts with ${other}` }))
  }
  if (opts.status && (opts.approve || opts.queue)) return Effect.fail(new UsageError({ detail: `--status conflicts with ${opts.approve ? "--approve" : "--queue"}` }))
  if (opts.queue && opts.approve) return Effect.fail(new UsageError({ detail: "--queue conflicts with --approve" }))
  if (opts.queue) return Option.isSome(opts.planId) ? Effect.fail(new UsageError({ detail: "--queue takes no plan id" })) : Effect.succeed({ form: "queue" as const })
  if (Option.isNone(opts.planId)) return Effect.fail(new UsageError({ detail: "give a plan id, or --queue" }))
  const planId = opts.planId.value
  return Effect.succeed(opts.status ? { form: "status" as const, planId } : opts.approve ? { form: "approve" as const, planId } : { form: "dry-run" as const, planId })
}

export const runReview = (opts: ReviewOptions) =>
  Effect.gen(function* () {
    const form = yield* reviewForm(opts)
    const body = Effect.gen(function* () {
      switch (form.form) {
        case "queue":
          return yield* emit(opts.output, ReviewQueueOutput, yield* reviewQueue, queueText)
        case "list":
          return yield* emit(opts.output, PlanListOutput, yield* planList, planListText)
        case "status":
          return yield* emit(opts.output, ReviewStatusOutput, yield* reviewStatus(form.planId), reviewStatusText)
        case "approve":
          return yield* emit(opts.output, ReviewOutput, yield* approvePlan({ planId: form.planId }), reviewText)
        case "dry-run":
          return yield* emit(opts.output, ReviewOutput, yield* reviewPlan({ planId: form.planId, base: Option.getOrUndefined(opts.base) }), reviewText)
      }
    })
    yield* body.pipe(Effect.provide((form.form === "approve" ? commandLayer.reviewApprove : commandLayer.review)(globalOptions(opts))))
  })

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
