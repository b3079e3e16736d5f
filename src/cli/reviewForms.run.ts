// `pcli review`'s forms other than --status and --queue: the list, the dry run and --approve.
import { Effect, Option } from "effect"
import { planList } from "../commands/planList"
import { approvePlan, reviewPlan } from "../commands/reviewPlan"
import * as commandLayer from "../layers/commandLayers"
import { planListText, reviewText } from "../render/text/plans"
import { PlanListOutput } from "../schemas/planListOutput"
import { ReviewOutput } from "../schemas/reviewOutput"
import { globalOptions } from "./options"
import { emit } from "./output"
import type { ReviewOptions } from "./review.run"

export type ReviewForm = { readonly form: "list" } | { readonly form: "approve" | "dry-run"; readonly planId: string }

export const runReviewForm = (opts: ReviewOptions, form: ReviewForm) => {
  const body = Effect.gen(function* () {
    switch (form.form) {
      case "list":
        return yield* emit(opts.output, PlanListOutput, yield* planList, planListText)
      case "approve":
        return yield* emit(opts.output, ReviewOutput, yield* approvePlan({ planId: form.planId }), reviewText)
      case "dry-run":
        return yield* emit(opts.output, ReviewOutput, yield* reviewPlan({ planId: form.planId, base: Option.getOrUndefined(opts.base) }), reviewText)
    }
  })
  return body.pipe(Effect.provide((form.form === "approve" ? commandLayer.reviewApprove : commandLayer.review)(globalOptions(opts))))
}
