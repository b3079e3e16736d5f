import type { Capability, PolicyBlock, PolicyEffect, PolicyRule, Principal, ScopeTable } from "../../schemas/policy"
import { REFINEMENTS } from "../../schemas/policy"
import type { EvaluationSubject } from "./attributes"
import { globMatcher } from "./glob"

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

// Constraint bits: specificity compares these sets (a strict subset is dominated).
const MODELS = 1
const TAGS = 2
const CLASSIFICATIONS = 4
const EXCLUDE = 8
const CONTRACTED = 16
const LAYER = 32
const REFINEMENT = 64

export interface CompiledRule {
  readonly id: number
  readonly rule: PolicyRule
  readonly effect: PolicyEffect
  readonly constraints: number
  readonly maxDownstreams: number | undefined
  readonly matches: (subject: EvaluationSubject) => boolean
}

export interface CompiledPolicy {
  readonly configured: boolean
  readonly defaultAgentEffect: PolicyEffect
  readonly rules: ReadonlyArray<CompiledRule>
  /** Candidate rules per `principal|capability`, in file order (refinements included). */
  readonly buckets: ReadonlyMap<string, ReadonlyArray<CompiledRule>>
}

const nonEmpty = <A>(xs: ReadonlyArray<A> | undefined): xs is ReadonlyArray<A> => xs !== undefined && xs.length > 0

const compileScope = (scope: ScopeTable): { constraints: number; matches: (s: EvaluationSubject) => boolean } => {
  const tests: Array<(s: EvaluationSubject) => boolean> = []
  let constraints = 0
  if (nonEmpty(scope.models)) {
    const globs = scope.models.map(globMatcher)
    tests.push((s) => globs.some((g) => g(s.name)))
    constraints |= MODELS
  }
  const tagEntries = Object.entries(scope.tags ?? {})
  if (tagEntries.length > 0) {
    tests.push((s) => tagEntries.every(([k, v]) => Object.prototype.hasOwnProperty.call(s.tags, k) && s.tags[k] === v))
    constraints |= TAGS
  }
  if (nonEmpty(scope.classifications)) {
    const wanted = scope.classifications
    tests.push((s) => wanted.some((c) => s.classifications.has(c)))
    constraints |= CLASSIFICATIONS
  }
  if (nonEmpty(scope.exclude_classifications)) {
    const banned = scope.exclude_classifications
    tests.push((s) => !banned.some((c) => s.classifications.has(c)))
    constraints |= EXCLUDE
  }
  if (scope.contracted !== undefined) {
    const want = scope.contracted
    tests.push((s) => s.contracted === want)
    constraints |= CONTRACTED
  }
  if (scope.layer !== undefined) {
    const want = scope.layer
    tests.push((s) => s.layer === want)
    constraints |= LAYER
  }
  const matches =
    tests.length === 0
      ? () => true
      : tests.length === 1
        ? tests[0]!
        : (s: EvaluationSubject) => {
            for (const t of tests) if (!t(s)) return false
            return true
          }
  return { constraints, matches }
}

const compileRule = (rule: PolicyRule, id: number): CompiledRule => {
  const { constraints, matches } = compileScope(rule.scope ?? { any: true })
  const refinement = REFINEMENTS.includes(rule.capability)
  return {
    id,
    rule,
    effect: rule.effect,
    constraints: constraints | (refinement ? REFINEMENT : 0),
    maxDownstreams: rule.scope?.max_downstreams,
    matches
  }
}

/** Capabilities a rule naming `capability` covers. */
export const coveredCapabilities = (capability: Capability): ReadonlyArray<Capability> =>
  capability === "apply" || capability === "promote" ? [capability, ...REFINEMENTS] : [capability]

const bucketKey = (principal: Principal, capability: Capability) => `${principal}|${capability}`

/** Compiles a `[policy]` block; `undefined` gives the default posture (no rules, agents review). */
export const compilePolicy = (block: PolicyBlock | undefined): CompiledPolicy => {
  const rules = (block?.rules ?? []).map(compileRule)
  const buckets = new Map<string, Array<CompiledRule>>()
  for (const rule of rules) {
    for (const covered of coveredCapabilities(rule.rule.capability)) {
      const key = bucketKey(rule.rule.principal, covered)
      const list = buckets.get(key)
      if (list === undefined) buckets.set(key, [rule])
      else list.push(rule)
    }
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

const isStrictSubset = (a: number, b: number) => a !== b && (a & b) === a

/** The static evaluator (pure): read short-circuit, deny override, specificity, tie-break, ceilings. */
export const evaluate = (
  policy: CompiledPolicy,
  principal: Principal,
  capability: Capability,
  subject: EvaluationSubject
): Verdict => {
  if (capability === "read") return { effect: "allow", matched_rule: null, reason: "read is always allowed (short-circuit)" }
  const bucket = policy.buckets.get(bucketKey(principal, capability)) ?? []
  const candidates: Array<CompiledRule> = []
  for (const rule of bucket) if (rule.matches(subject)) candidates.push(rule)
  if (candidates.length === 0) {
    return principal === "human"
      ? { effect: "allow", matched_rule: null, reason: "no rule matched; humans are not gated" }
      : {
          effect: policy.defaultAgentEffect,
          matched_rule: null,
          reason: `no rule matched; default_agent_effect = ${policy.defaultAgentEffect}`
        }
  }
  const firstDeny = candidates.find((c) => c.effect === "deny")
  if (firstDeny !== undefined) {
    return { effect: "deny", matched_rule: firstDeny.id, reason: `denied by rule ${firstDeny.id} (deny overrides)` }
  }
  const reachable = subject.reachableDownstreams
  const postEffect = (c: CompiledRule): PolicyEffect => (breachesCeiling(c, reachable) ? "require_review" : c.effect)
  const survivors = candidates.filter((c) => !candidates.some((o) => isStrictSubset(c.constraints, o.constraints)))
  let winner = survivors[0]!
  for (const c of survivors) {
    if (RANK[postEffect(c)] > RANK[postEffect(winner)]) winner = c
  }
  const effect = postEffect(winner)
  const how =
    survivors.length === 1
      ? "most-specific match"
      : survivors.every((c) => postEffect(c) === effect)
        ? `earliest of ${survivors.length} equally-specific rules`
        : `most-restrictive of ${survivors.length} incomparable rules`
  let reason = `${effect} by rule ${winner.id} (${how})`
  if (breachesCeiling(winner, reachable)) {
    reason += `; ${ceilingDetail(winner, reachable)} — allow degraded to require_review`
  }
  if (effect === "allow") {
    const capped = candidates.find((c) => breachesCeiling(c, reachable))
    if (capped !== undefined) {
      return {
        effect: "require_review",
        matched_rule: winner.id,
        reason: `${reason}; sticky safety cap: rule ${capped.id} ${ceilingDetail(capped, reachable)} — allow capped to require_review`
      }
    }
  }
  return { effect, matched_rule: winner.id, reason }
}
