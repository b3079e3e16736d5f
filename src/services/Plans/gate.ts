import { Effect } from "effect"
import type { Capability, PolicyEffect, Principal } from "../../schemas/policy"
import { isGatedPlan, type Plan, type PlanBody, type PlanKind, type ReviewMarker } from "../../schemas/plans"
import { asBuilt, attributesOf, type BuiltAttributes, builtAttributesOf, type CompiledModelFacts, type ModelAttributes, relationOf } from "../PolicyEngine/attributes"
import { decidedBy, effectRank } from "../PolicyEngine/evaluate"
import { type ModelVerdict, PolicyEngine } from "../PolicyEngine/PolicyEngine"
import type { Ledger, LedgerUnavailable } from "../Ledger/Ledger"
import { recordedApproval } from "./approvals"
import { type InvalidMarker, MarkerMissing, type MarkerUnrecorded, PolicyDenied } from "./errors"
import { ALWAYS_GATED, needsHumanMarker } from "./gatedKinds"
import type { MarkerState } from "./markers"
import { type BuiltContext, describeScopeChanges, sameScopeAttributes, scopeAttributeChanges } from "./scopeChange"

export type { BuiltContext } from "./scopeChange"

/** gc and backfill are agent actions whoever applies them (decisions.md item 8). */
const AGENT_KINDS: ReadonlySet<PlanKind> = new Set(["gc", "backfill"])

export { ALWAYS_GATED } from "./gatedKinds"

/** Kinds apply can execute today; the others refuse after the gates (`plan-kind-not-executable`). */
export const EXECUTABLE: ReadonlySet<PlanKind> = new Set(["run", "escalation", "ai_authored", "backfill", "gc", "restore", "promote", "rollback"])

/** A rollback is a promote to the previous targets (decision 37): policy judges it at `promote`. */
const capabilityOfKind = (kind: "gc" | "restore" | "backfill" | "promote" | "rollback"): Capability => (kind === "rollback" ? "promote" : kind)

/** Why an agent's promote or rollback needs a human's marker (decision 37), or undefined. */
export const agentPromoteRequirement = (kind: PlanKind, principal: Principal): string | undefined =>
  needsHumanMarker(kind, principal) ? `an agent's ${kind} always needs a human's review marker` : undefined

/** The stricter of the invoker and the kind's default principal. */
export const enforcedPrincipal = (kind: PlanKind, invoker: Principal): Principal => (AGENT_KINDS.has(kind) ? "agent" : invoker)

/** One model to evaluate, at one capability. */
export interface GateItem {
  readonly model: string
  readonly capability: Capability
  readonly attributes: ModelAttributes
  /** The model as last built or applied (and its relation as other models last built it): each judged too, the strictest wins (decisions.md 33). */
  readonly built?: ReadonlyArray<ModelAttributes> | undefined
  /** A second capability judged too (an agent run of a model whose scope attributes changed). */
  readonly alsoAt?: Capability | undefined
  /** Scope attributes changed since the last build, named in the reason. */
  readonly changed?: ReadonlyArray<string> | undefined
}

/** What the gate reads of a project: each model's facts (a compiled project, or the facts a view-swap plan carries). */
export interface ModelFactsSource {
  readonly models: ReadonlyMap<string, CompiledModelFacts>
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
 * The records a model is judged against: its own last build, and the build of another model
 * that last wrote its relation (a model renamed or retargeted onto a table does not shed the table's history).
 */
const recordsOf = (item: GateItem, model: CompiledModelFacts, context: BuiltContext): ReadonlyArray<{ readonly by: string; readonly attributes: BuiltAttributes }> => {
  const writer = model.target === undefined ? undefined : context.lastWriter.get(relationOf(model.target))
  const by = writer === undefined || writer === item.model ? [item.model] : [item.model, writer]
  return by.flatMap((name) => {
    const attributes = context.attributes.get(name)
    return attributes === undefined ? [] : [{ by: name, attributes }]
  })
}

/**
 * The item judged as its model was last built too (decisions.md 33). With `upgrade`, a
 * scope-relevant attribute change makes it `schema_change.breaking`, its own capability still judged.
 */
export const judgedAsBuilt = (item: GateItem, model: CompiledModelFacts | undefined, context: BuiltContext | undefined, upgrade: boolean): GateItem => {
  if (model === undefined || context === undefined) return item
  const records = recordsOf(item, model, context)
  if (records.length === 0) return item
  const now = builtAttributesOf(model)
  const changed = [
    ...new Set(
      records.flatMap((r) => {
        const details = describeScopeChanges(scopeAttributeChanges(r.attributes, now, context.reads))
        return r.by === item.model ? details : details.map((d) => `${d} (${r.attributes.relation} as last built by ${r.by})`)
      })
    )
  ]
  const breaking = upgrade && changed.length > 0 && item.capability !== "schema_change.breaking"
  return {
    ...item,
    // Another model's build is judged under its name too: a rule naming that model still reads it.
    built: records.map((r) => asBuilt(r.by === item.model ? item.attributes : { ...item.attributes, name: r.by }, r.attributes)),
    ...(changed.length > 0 ? { changed } : {}),
    ...(breaking ? { capability: "schema_change.breaking" as const, alsoAt: item.capability } : {})
  }
}

/**
 * What a plan asks policy about: run-like plans evaluate each directly changed model at its
 * change class and each downstream model it rebuilds at `value_change`; gc, restore and
 * backfill plans evaluate their kind's capability for every model they name. With `built`,
 * each model is judged as last built too.
 */
export const gateItems = (plan: PlanBody, project: ModelFactsSource, built?: BuiltContext): ReadonlyArray<GateItem> => {
  const attrs = (name: string) => {
    const m = project.models.get(name)
    return m === undefined ? absentAttributes(name) : attributesOf(m)
  }
  const judged = (item: GateItem, upgrade: boolean) => judgedAsBuilt(item, project.models.get(item.model), built, upgrade)
  if (isGatedPlan(plan)) {
    const capability = capabilityOfKind(plan.kind)
    return plan.payload.models.map((model) => judged({ model, capability, attributes: attrs(model) }, false))
  }
  const direct = new Map(plan.payload.changes.map((c) => [c.model, c]))
  const items: Array<GateItem> = plan.payload.models.map((model) =>
    judged({ model, capability: direct.get(model)?.change_class ?? "value_change", attributes: attrs(model) }, true)
  )
  const running = new Set(plan.payload.models)
  for (const change of plan.payload.changes) {
    if (!running.has(change.model)) {
      // A removed model: the plan's record of it, and (not trusting the file alone) what its last build recorded.
      const attributes = absentAttributes(change.model, change.base_attributes)
      const recorded = built?.attributes.get(change.model)
      items.push({ model: change.model, capability: change.change_class, attributes, ...(recorded === undefined ? {} : { built: [asBuilt(attributes, recorded)] }) })
    }
  }
  return items
}

export type Evaluated = { readonly item: GateItem; readonly verdict: ModelVerdict }

/** One question put to the gate: a capability, about the model as proposed or as built. */
interface Probe {
  readonly item: number
  readonly capability: Capability
  readonly attributes: ModelAttributes
  readonly asBuilt: boolean
}

const probesOf = (item: GateItem, i: number): ReadonlyArray<Probe> => {
  const built = (item.built ?? []).filter((b) => b.name !== item.attributes.name || !sameScopeAttributes(b, item.attributes))
  return [item.capability, ...(item.alsoAt === undefined ? [] : [item.alsoAt])].flatMap((capability) => [
    { item: i, capability, attributes: item.attributes, asBuilt: false },
    ...built.map((attributes) => ({ item: i, capability, attributes, asBuilt: true }))
  ])
}

/** The strictest answer among an item's probes (the first on a tie), its reason naming both sides when they differ. */
const combine = (item: GateItem, answers: ReadonlyArray<{ readonly probe: Probe; readonly verdict: ModelVerdict }>): Evaluated => {
  const first = answers[0]!
  if (answers.length === 1 && item.changed === undefined) return { item, verdict: first.verdict }
  const worst = answers.reduce((w, a) => (effectRank(a.verdict.effect) > effectRank(w.verdict.effect) ? a : w))
  const proposed = answers.filter((a) => !a.probe.asBuilt).reduce((w, a) => (effectRank(a.verdict.effect) > effectRank(w.verdict.effect) ? a : w))
  const at = worst.probe.capability === item.capability ? "" : `at ${worst.probe.capability}: `
  let reason =
    worst.probe.asBuilt && worst.verdict.effect !== proposed.verdict.effect
      ? `as last built: ${at}${worst.verdict.reason}; as proposed: ${proposed.verdict.reason}`
      : `${at}${worst.verdict.reason}`
  if (item.changed !== undefined && item.changed.length > 0) reason += `; changed since the last build: ${item.changed.join(", ")}`
  return { item: { ...item, capability: worst.probe.capability }, verdict: { ...worst.verdict, reason } }
}

/**
 * Runs the enforcement gate once per capability, over every item as proposed and (when it
 * differs) as last built; each item gets the strictest answer. `undefined` without `[policy]`.
 */
export const evaluateItems = (
  principal: Principal,
  items: ReadonlyArray<GateItem>
): Effect.Effect<ReadonlyArray<Evaluated> | undefined, never, PolicyEngine> =>
  Effect.gen(function* () {
    const engine = yield* PolicyEngine
    if (!engine.configured) return undefined
    const probes = items.flatMap(probesOf)
    const groups = new Map<Capability, Array<number>>()
    probes.forEach((probe, i) => groups.set(probe.capability, [...(groups.get(probe.capability) ?? []), i]))
    const verdicts: Array<ModelVerdict | undefined> = new Array(probes.length)
    for (const [capability, indexes] of groups) {
      const outcome = yield* engine.gate(principal, capability, indexes.map((i) => probes[i]!.attributes))
      if (outcome._tag === "NotConfigured") return undefined
      indexes.forEach((i, k) => (verdicts[i] = outcome.verdicts[k]))
    }
    const byItem: Array<Array<{ readonly probe: Probe; readonly verdict: ModelVerdict }>> = items.map(() => [])
    probes.forEach((probe, i) => byItem[probe.item]!.push({ probe, verdict: verdicts[i]! }))
    return items.map((item, i) => combine(item, byItem[i]!))
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

/**
 * The marker gate: only a well-formed marker naming exactly this plan passes, and only with its
 * approval row (decisions.md 34); the marker comes back with the row's principal as its approver.
 */
export const checkMarker = (
  planId: string,
  state: MarkerState,
  why: string
): Effect.Effect<ReviewMarker, MarkerMissing | InvalidMarker | MarkerUnrecorded | LedgerUnavailable, Ledger> =>
  state._tag === "Approved"
    ? Effect.map(recordedApproval(planId, state.path, state.marker), (recorded) => recorded.marker)
    : state._tag === "Absent"
      ? Effect.fail(new MarkerMissing({ planId, path: state.path, why }))
      : Effect.fail(state.error)
