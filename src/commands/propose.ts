import { Effect } from "effect"
import type { ProposeOutput } from "../schemas/authoring"
import { ProposalNeedsReview } from "../services/Plans/errors"
import { planCreate } from "./planCreate"

export interface ProposeInput {
  readonly models: ReadonlyArray<string>
  readonly base?: string | undefined
}

/**
 * MCP `propose` (decisions.md 32, 39): an `ai_authored` plan through the same use case as `pcli plan`.
 * Capability `propose` is evaluated first for every changed model; a deny records nothing
 * (`policy_denied`, naming propose). Then the plan is evaluated as `pcli apply` will evaluate it.
 * Deny: no plan (`policy_denied`). Require review: the plan is recorded and the error names it
 * (`policy_review_required`). Allow: the plan.
 */
export const propose = (input: ProposeInput) =>
  Effect.gen(function* () {
    const planned = yield* planCreate({ models: input.models, base: input.base, aiAuthored: true })
    const review = planned.evaluations.find((e) => e.effect === "require_review")
    if (review !== undefined) return yield* new ProposalNeedsReview({ planId: planned.plan_id, model: review.model, rule: review.rule_id })
    return { command: "propose", plan_id: planned.plan_id, models: [...planned.models], next: planned.next } satisfies ProposeOutput
  })
