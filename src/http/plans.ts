import { HttpApiBuilder } from "@effect/platform"
import { planList } from "../commands/planList"
import { reviewPlan, reviewQueue, reviewStatus } from "../commands/reviewPlan"
import { PlanListOutput } from "../schemas/planListOutput"
import { ReviewOutput } from "../schemas/reviewOutput"
import { ReviewQueueOutput } from "../schemas/reviewQueueOutput"
import { ReviewStatusOutput } from "../schemas/reviewStatusOutput"
import { ServeApi } from "./api"
import { answer } from "./respond"

/** GET /api/v1/plans, /plans/{id}, /plans/{id}/status, /review-queue: `pcli review --list | <id> | <id> --status | --queue`; never approves. */
export const PlanRoutes = HttpApiBuilder.group(ServeApi, "plans", (handlers) =>
  handlers
    .handle("list", () => answer(PlanListOutput, planList))
    .handle("review", ({ path }) => answer(ReviewOutput, reviewPlan({ planId: path.id })))
    .handle("status", ({ path }) => answer(ReviewStatusOutput, reviewStatus(path.id)))
    .handle("queue", () => answer(ReviewQueueOutput, reviewQueue))
)
