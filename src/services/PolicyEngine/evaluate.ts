import type { Capability, PolicyBlock, PolicyEffect, Principal } from "../../schemas/policy"
import { REFINEMENTS } from "../../schemas/policy"
import type { EvaluationSubject } from "./attributes"
import { type IndexedBucket, makeIndexedBucket, selectIndexed } from "./bucket"
import { breachedAt, type CompiledRule, compileRule, selectPlain, type Selection } from "./plain"

export type { CompiledRule, Selection } from "./plain"

/**
 * The rules one `principal|capability` request looks at (refinements included), in file order.
 * Large buckets also carry the bitset index; small ones are scanned (the plain evaluator).
 */
export interface Bucket {
  readonly rules: ReadonlyArray<CompiledRule>
  readonly indexed: IndexedBucket | undefined
}

/** Buckets with at least this many rules get the bitset index (measured: docs/performance.md, bench/policy.ts). */
export const INDEX_THRESHOLD = 16

export interface CompileOptions {
  /** Bucket size from which the index is used (1 = always, Infinity = never). */
  readonly indexThreshold?: number
}

/** The static answer: what `policy check`/`policy test` print and enforcement starts from. */
export interface Verdict {
  readonly effect: PolicyEffect
  readonly matched_rule: number | null
  readonly reason: string
  /** The freeze that forced a deny: a refusal names it, not the rule that matched (issue 32 item 7). */
  readonly freeze?: FreezeCause
}

/** A freeze as a refusal names it: scope, reason, and where it was recorded. */
export interface FreezeCause {
  readonly scope: string
  readonly reason: string
  /** The freeze row's decision_ref (the ledger's public row reference); absent for a durable marker. */
  readonly decision_ref?: string
  readonly freeze_id?: string
}

/** How a refusal says who decided: the freeze when one forced the deny, else the rule or the default. */
export const decidedBy = (verdict: Pick<Verdict, "matched_rule" | "freeze">): string =>
  verdict.freeze !== undefined
    ? `the freeze on scope '${verdict.freeze.scope}' (${verdict.freeze.decision_ref === undefined ? `marker ${verdict.freeze.freeze_id ?? "unreadable"}` : `ledger row ${verdict.freeze.decision_ref}`}: ${verdict.freeze.reason})`
    : verdict.matched_rule === null
      ? "the default agent effect"
      : `rule ${verdict.matched_rule}`

const RANK: Readonly<Record<PolicyEffect, number>> = { allow: 0, require_review: 1, deny: 2 }

export const effectRank = (effect: PolicyEffect): number => RANK[effect]

/** The more restrictive of two effects. */
export const stricter = (a: PolicyEffect, b: PolicyEffect): PolicyEffect => (RANK[a] >= RANK[b] ? a : b)

export interface CompiledPolicy {
  readonly configured: boolean
  readonly defaultAgentEffect: PolicyEffect
  readonly rules: ReadonlyArray<CompiledRule>
  readonly buckets: ReadonlyMap<Principal, ReadonlyMap<Capability, Bucket>>
}

/** Capabilities a rule naming `capability` covers. */
export const coveredCapabilities = (capability: Capability): ReadonlyArray<Capability> =>
  capability === "apply" || capability === "promote" ? [capability, ...REFINEMENTS] : [capability]

/** Compiles a `[policy]` block; `undefined` gives the default posture (no rules, agents review). */
export const compilePolicy = (block: PolicyBlock | undefined, options: CompileOptions = {}): CompiledPolicy => {
  const threshold = options.indexThreshold ?? INDEX_THRESHOLD
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
    buckets.set(
      principal,
      new Map([...byCapability].map(([capability, list]) => [capability, { rules: list, indexed: list.length >= threshold ? makeIndexedBucket(list) : undefined }]))
    )
  }
  return {
    configured: block !== undefined,
    defaultAgentEffect: block?.default_agent_effect ?? "require_review",
    rules,
    buckets
  }
}

/** True when the rule's allow ceiling is breached (reachable over N, or uncountable). */
const breachesCeiling = (rule: CompiledRule, reachable: number | undefined): boolean => breachedAt(rule, reachable ?? Infinity)

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

/** The bucket's evaluator: the plain scan, or the index when the bucket has one (they agree exactly). */
export const select = (bucket: Bucket, subject: EvaluationSubject): Selection =>
  bucket.indexed === undefined ? selectPlain(bucket.rules, subject) : selectIndexed(bucket.indexed, subject)

/** The static evaluator (pure, re-entrant): read short-circuit, deny override, specificity, tie-break, ceilings. */
export const evaluate = (
  policy: CompiledPolicy,
  principal: Principal,
  capability: Capability,
  subject: EvaluationSubject
): Verdict => {
  if (capability === "read") return { effect: "allow", matched_rule: null, reason: "read is always allowed (short-circuit)" }
  const bucket = policy.buckets.get(principal)?.get(capability)
  if (bucket === undefined) return noMatch(policy, principal)
  const { deny, winner: top, survivors, mixed, capped } = select(bucket, subject)
  // Deny overrides whatever its specificity: the first matching deny in file order decides.
  if (deny !== undefined) return { effect: "deny", matched_rule: deny.id, reason: `denied by rule ${deny.id} (deny overrides)` }
  if (top === undefined) return noMatch(policy, principal)
  const reachable = subject.reachableDownstreams
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
  if (effect === "allow" && capped !== undefined) {
    return {
      effect: "require_review",
      matched_rule: top.id,
      reason: `${reason}; sticky safety cap: rule ${capped.id} ${ceilingDetail(capped, reachable)} — allow capped to require_review`
    }
  }
  return { effect, matched_rule: top.id, reason }
}
