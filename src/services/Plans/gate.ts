import { Effect } from "effect"
import type { Capability, PolicyEffect, Principal } from "../../schemas/policy"
import { isGatedPlan, type Plan, type PlanBody, type PlanKind, type ReviewMarker } from "../../schemas/plans"
import { attributesOf, type ModelAttributes } from "../PolicyEngine/attributes"
import { decidedBy, effectRank } from "../PolicyEngine/evaluate"
import { type ModelVerdict, PolicyEngine } from "../PolicyEngine/PolicyEngine"
import type { CompiledProject } from "../Project/compile"
import { type InvalidMarker, MarkerMissing, PolicyDenied } from "./errors"
import type { MarkerState } from "./markers"

/** gc and backfill are agent actions whoever applies them (decisions.md item 8). */
const AGENT_KINDS: ReadonlySet<PlanKind> = new Set(["gc", "backfill"])

/** Kinds that need a valid marker whoever applies them and whatever policy says. */
export const ALWAYS_GATED: ReadonlySet<PlanKind> = new Set(["gc", "backfill", "restore", "ai_authored", "escalation"])

/** Kinds apply can execute today; the others refuse after the gates (`plan-kind-not-executable`). */
export const EXECUTABLE: ReadonlySet<PlanKind> = new Set(["run", "escalation", "ai_authored", "backfill", "gc", "restore"])

/** The stricter of the invoker and the kind's default principal. */
export const enforcedPrincipal = (kind: PlanKind, invoker: Principal): Principal => (AGENT_KINDS.has(kind) ? "agent" : invoker)

/** One model to evaluate, at one capability. */
export interface GateItem {
  readonly model: string
  readonly capability: Capability
  readonly attributes: ModelAttributes
}

/** A model the project no longer has: what the plan recorded about it, blast radius unknown. */
export const absentAttributes = (name: string, recorded?: { readonly tags: Readonly<Record<string, string>>; readonly classifications: ReadonlyArray<string>; readonly contracted: boolean }): ModelAttributes => ({
  name,
  tags: recorded?.tags ?? {},
  classifications: recorded?.classifications ?? [],
  contracted: recorded?.contracted ?? false,
  reachableDownstreams: undefined
})

/**
 * What a plan asks policy about: run-like plans evaluate each directly changed model at its
 * change class and each downstream model it rebuilds at `value_change`; gc, restore and
 * backfill plans evaluate their kind's capability for every model they name.
 */
export const gateItems = (plan: PlanBody, project: CompiledProject): ReadonlyArray<GateItem> => {
  const attrs = (name: string) => {
    const m = project.models.get(name)
    return m === undefined ? absentAttributes(name) : attributesOf(m)
  }
  if (isGatedPlan(plan)) {
    const capability = plan.kind
    return plan.payload.models.map((model) => ({ model, capability, attributes: attrs(model) }))
  }
  const direct = new Map(plan.payload.changes.map((c) => [c.model, c]))
  const items: Array<GateItem> = plan.payload.models.map((model) => ({
    model,
    capability: direct.get(model)?.change_class ?? "value_change",
    attributes: attrs(model)
  }))
  const running = new Set(plan.payload.models)
  for (const change of plan.payload.changes) {
    if (!running.has(change.model)) {
      items.push({ model: change.model, capability: change.change_class, attributes: absentAttributes(change.model, change.base_attributes) })
    }
  }
  return items
}

export type Evaluated = { readonly item: GateItem; readonly verdict: ModelVerdict }

/** Runs the enforcement gate per capability group; `undefined` when there is no `[policy]` block. */
export const evaluateItems = (
  principal: Principal,
  items: ReadonlyArray<GateItem>
): Effect.Effect<ReadonlyArray<Evaluated> | undefined, never, PolicyEngine> =>
  Effect.gen(function* () {
    const engine = yield* PolicyEngine
    if (!engine.configured) return undefined
    const groups = new Map<Capability, Array<number>>()
    items.forEach((item, i) => groups.set(item.capability, [...(groups.get(item.capability) ?? []), i]))
    const verdicts: Array<ModelVerdict | undefined> = new Array(items.length)
    for (const [capability, indexes] of groups) {
      const outcome = yield* engine.gate(principal, capability, indexes.map((i) => items[i]!.attributes))
      if (outcome._tag === "NotConfigured") return undefined
      indexes.forEach((i, k) => (verdicts[i] = outcome.verdicts[k]))
    }
    return items.map((item, i) => ({ item, verdict: verdicts[i]! }))
  })

/** The most restrictive effect among evaluations (allow when there are none). */
export const strictest = (evaluated: ReadonlyArray<Evaluated>): PolicyEffect =>
  evaluated.reduce<PolicyEffect>((worst, e) => (effectRank(e.verdict.effect) > effectRank(worst) ? e.verdict.effect : worst), "allow")

/** A deny anywhere refuses the plan, naming the first denied model and its rule. */
export const denial = (planId: string, evaluated: ReadonlyArray<Evaluated>): PolicyDenied | undefined => {
  const denied = evaluated.find((e) => e.verdict.effect === "deny")
  return denied === undefined
    ? undefined
    : new PolicyDenied({
        planId,
        model: denied.item.model,
        capability: denied.item.capability,
        rule: denied.verdict.matched_rule,
        reason: denied.verdict.reason,
        decidedBy: decidedBy(denied.verdict)
      })
}

/** Why this apply needs a marker, or undefined when it does not. */
export const markerRequirement = (plan: Plan, evaluated: ReadonlyArray<Evaluated>): string | undefined => {
  if (ALWAYS_GATED.has(plan.kind)) return `${plan.kind} plans always need a review marker, whoever applies them`
  const review = evaluated.find((e) => e.verdict.effect === "require_review")
  if (review === undefined) return undefined
  const rule = review.verdict.matched_rule === null ? "default agent effect" : `rule ${review.verdict.matched_rule}`
  return `policy requires review: model ${review.item.model} (${rule}) resolved to require_review — ${review.verdict.reason}`
}

/** The marker gate: only a well-formed marker naming exactly this plan passes. */
export const checkMarker = (planId: string, state: MarkerState, why: string): Effect.Effect<ReviewMarker, MarkerMissing | InvalidMarker> =>
  state._tag === "Approved"
    ? Effect.succeed(state.marker)
    : state._tag === "Absent"
      ? Effect.fail(new MarkerMissing({ planId, path: state.path, why }))
      : Effect.fail(state.error)
