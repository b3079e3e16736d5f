// `pcli review --queue` (apart from reviewForms.run.ts, whose dry run and --approve load the diff, the gate and the rederive).
import { Effect } from "effect"
import { reviewQueue } from "../commands/reviewQueue"
import * as commandLayer from "../layers/commandLayers"
import { queueText } from "../render/text/plans"
import { ReviewQueueOutput } from "../schemas/reviewQueueOutput"
import { globalOptions } from "./options"
import { emit } from "./output"
import type { ReviewOptions } from "./review.run"

export const runReviewQueue = (opts: ReviewOptions) =>
  Effect.flatMap(reviewQueue, (out) => emit(opts.output, ReviewQueueOutput, out, queueText)).pipe(Effect.provide(commandLayer.review(globalOptions(opts))))
