// `pcli review <id> --status`: the plan and its marker, over the plans and the store read-only (no compiler).
import { Effect } from "effect"
import { reviewStatus } from "../commands/reviewStatus"
import * as commandLayer from "../layers/commandLayers"
import { reviewStatusText } from "../render/text/plans"
import { ReviewStatusOutput } from "../schemas/reviewStatusOutput"
import { type CommonOptions, globalOptions } from "./options"
import { emit } from "./output"

export const runReviewStatus = (opts: CommonOptions, planId: string) =>
  Effect.flatMap(reviewStatus(planId), (out) => emit(opts.output, ReviewStatusOutput, out, reviewStatusText)).pipe(
    Effect.provide(commandLayer.reviewStatus(globalOptions(opts)))
  )
