import type { Capability, PolicyBlock, PolicyEffect, PolicyRule, Principal, ScopeTable } from "../../schemas/policy"
import { REFINEMENTS } from "../../schemas/policy"
import type { EvaluationSubject } from "./attributes"
import { type Bucket, type CompiledRule, makeBucket, select, type Selection } from "./bucket"

export type { Bucket, CompiledRule } from "./bucket"

/** The static answer: what `policy check`/`policy test` print and enforcement starts from. */
export interface Verdict {
  readonly effect: PolicyEffect
  readonly matched_rule: number | null
  readonly reason: string
}

const RANK: Readonly<Record<PolicyEffect, number>> = { allow: 0, require_review: 1, deny: 2 }

export const effectRank = (effect: PolicyEffect): number => RANK[effect]

/** The more restrictive of two effects. */
export const stricter = (a: PolicyEffect, b: PolicyEffect): PolicyEffect => (RANK[a] >= RANK[b] ? a : b)

// Constraint bits (see CompiledRule.constraints).
const MODELS = 1
const TAGS = 2
const CLASSIFICATIONS = 4
const EXCLUDE = 8
const CONTRACTED = 16
const LAYER = 32
const REFINEMENT = 64

export interface CompiledPolicy {
  readonly configured: boolean
  readonly defaultAgentEffect: PolicyEffect
  readonly rules: ReadonlyArray<CompiledRule>
  readonly buckets: ReadonlyMap<Principal, ReadonlyMap<Capability, Bucket>>
}

const nonEmpty = <A>(xs: ReadonlyArray<A> | undefined): xs is ReadonlyArray<A> => xs !== undefined && xs.length > 0

const scopeConstraints = (scope: ScopeTable): number =>
  (nonEmpty(scope.models) ? MODELS : 0) |
  (Object.keys(scope.tags ?? {}).length > 0 ? TAGS : 0) |
  (nonEmpty(scope.classifications) ? CLASSIFICATIONS : 0) |
  (nonEmpty(scope.exclude_classifications) ? EXCLUDE : 0) |
  (scope.contracted !== undefined ? CONTRACTED : 0) |
  (scope.layer !== undefined ? LAYER : 0)

const compileRule = (rule: PolicyRule, id: number): CompiledRule => ({
  id,
  rule,
  effect: rule.effect,
  constraints: scopeConstraints(rule.scope ?? { any: true }) | (REFINEMENTS.includes(rule.capability) ? REFINEMENT : 0),
  maxDownstreams: rule.scope?.max_downstreams
})

/** Capabilities a rule naming `capability` covers. */
export const coveredCapabilities = (capability: Capability): ReadonlyArray<Capability> =>
  capability === "apply" || capability === "promote" ? [capability, ...REFINEMENTS] : [capability]

/** Compiles a `[policy]` block; `undefined` gives the default posture (no rules, agents review). */
export const compilePolicy = (block: PolicyBlock | undefined): CompiledPolicy => {
  const rules = (block?.rules ?? []).map(compileRule)
  const grouped = new Map<Principal, Map<Capability, Array<CompiledRule>>>()
  for (const rule of rules) {
    let byCapability = grouped.get(rule.rule.principal)
    if (byCapability === undefined) grouped.set(rule.rule.principal, (byCapability = new Map()))
    for (const covered of coveredCapabilities(rule.rule.capability)) {
      const list = byCapability.get(covered)
      if (list === undefined) byCapability.set(covered, [rule])
      else list.push(rule)
    }
  }
  const buckets = new Map<Principal, Map<Capability, Bucket>>()
  for (const [principal, byCapability] of grouped) {
    buckets.set(principal, new Map([...byCapability].map(([capability, list]) => [capability, makeBucket(list)])))
  }
  return {
    configured: block !== undefined,
    defaultAgentEffect: block?.default_agent_effect ?? "require_review",
    rules,
    buckets
  }
}

/** True when the rule's allow ceiling is breached (reachable over N, or uncountable). */
const breachesCeiling = (rule: CompiledRule, reachable: number | undefined): boolean =>
  rule.effect === "allow" && rule.maxDownstreams !== undefined && (reachable === undefined || reachable > rule.maxDownstreams)

const ceilingDetail = (rule: CompiledRule, reachable: number | undefined): string =>
  reachable === undefined
    ? `max_downstreams=${rule.maxDownstreams} unverifiable (blast radius uncomputable)`
    : `max_downstreams=${rule.maxDownstreams} exceeded (blast radius ${reachable})`

const noMatch = (policy: CompiledPolicy, principal: Principal): Verdict =>
  principal === "human"
    ? { effect: "allow", matched_rule: null, reason: "no rule matched; humans are not gated" }
    : {
        effect: policy.defaultAgentEffect,
        matched_rule: null,
        reason: `no rule matched; default_agent_effect = ${policy.defaultAgentEffect}`
      }

// Reused by every evaluation (synchronous, read before the next call).
const selection: Selection = { deny: -1, winner: -1, survivors: 0, mixed: false, capped: -1 }

/** The static evaluator (pure): read short-circuit, deny override, specificity, tie-break, ceilings. */
export const evaluate = (
  policy: CompiledPolicy,
  principal: Principal,
  capability: Capability,
  subject: EvaluationSubject
): Verdict => {
  if (capability === "read") return { effect: "allow", matched_rule: null, reason: "read is always allowed (short-circuit)" }
  const bucket = policy.buckets.get(principal)?.get(capability)
  if (bucket === undefined) return noMatch(policy, principal)
  const { deny, winner, survivors, mixed, capped } = select(bucket, subject, selection)
  // Deny overrides whatever its specificity: the first matching deny in file order decides.
  if (deny !== -1) {
    const id = bucket.rules[deny]!.id
    return { effect: "deny", matched_rule: id, reason: `denied by rule ${id} (deny overrides)` }
  }
  if (winner === -1) return noMatch(policy, principal)
  const reachable = subject.reachableDownstreams
  const top = bucket.rules[winner]!
  // The winner is never a deny here; a breached allow ceiling degrades it to require_review.
  const effect: PolicyEffect = top.effect === "require_review" || breachesCeiling(top, reachable) ? "require_review" : "allow"
  const how =
    survivors === 1
      ? "most-specific match"
      : mixed
        ? `most-restrictive of ${survivors} incomparable rules`
        : `earliest of ${survivors} equally-specific rules`
  let reason = `${effect} by rule ${top.id} (${how})`
  if (breachesCeiling(top, reachable)) reason += `; ${ceilingDetail(top, reachable)} — allow degraded to require_review`
  if (effect === "allow" && capped !== -1) {
    const cap = bucket.rules[capped]!
    return {
      effect: "require_review",
      matched_rule: top.id,
      reason: `${reason}; sticky safety cap: rule ${cap.id} ${ceilingDetail(cap, reachable)} — allow capped to require_review`
    }
  }
  return { effect, matched_rule: top.id, reason }
}
