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

export interface Bucket {
  readonly denies: ReadonlyArray<CompiledRule>
  readonly others: ReadonlyArray<CompiledRule>
}

export interface CompiledPolicy {
  readonly configured: boolean
  readonly defaultAgentEffect: PolicyEffect
  readonly rules: ReadonlyArray<CompiledRule>
  /** Candidate rules per `principal|capability`, in file order (refinements included), denies apart. */
  readonly buckets: ReadonlyMap<string, Bucket>
}

const nonEmpty = <A>(xs: ReadonlyArray<A> | undefined): xs is ReadonlyArray<A> => xs !== undefined && xs.length > 0

const compileScope = (scope: ScopeTable): { constraints: number; matches: (s: EvaluationSubject) => boolean } => {
  const tests: Array<(s: EvaluationSubject) => boolean> = []
  let constraints = 0
  if (nonEmpty(scope.models)) {
    const globs = scope.models.map(globMatcher)
    const only = globs.length === 1 ? globs[0]! : undefined
    tests.push(only !== undefined ? (s) => only(s.name) : (s) => globs.some((g) => g(s.name)))
    constraints |= MODELS
  }
  const tagEntries = Object.entries(scope.tags ?? {})
  if (tagEntries.length > 0) {
    // Inherited properties are never strings, so `===` against a string value needs no own-property check.
    const [key, value] = tagEntries[0]!
    tests.push(tagEntries.length === 1 ? (s) => s.tags[key] === value : (s) => tagEntries.every(([k, v]) => s.tags[k] === v))
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
  const buckets = new Map<string, { denies: Array<CompiledRule>; others: Array<CompiledRule> }>()
  for (const rule of rules) {
    for (const covered of coveredCapabilities(rule.rule.capability)) {
      const key = bucketKey(rule.rule.principal, covered)
      const bucket = buckets.get(key) ?? { denies: [], others: [] }
      buckets.set(key, bucket)
      ;(rule.effect === "deny" ? bucket.denies : bucket.others).push(rule)
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

/** For each constraint set (7 bits), the sets that strictly contain it. */
const STRICT_SUPERSETS: ReadonlyArray<ReadonlyArray<number>> = Array.from({ length: 128 }, (_, m) =>
  Array.from({ length: 128 }, (_, o) => o).filter((o) => o !== m && (m & o) === m)
)

const hasBit = (bits: Array<number>, m: number) => (bits[m >> 5]! & (1 << (m & 31))) !== 0

/** The static evaluator (pure): read short-circuit, deny override, specificity, tie-break, ceilings. */
export const evaluate = (
  policy: CompiledPolicy,
  principal: Principal,
  capability: Capability,
  subject: EvaluationSubject
): Verdict => {
  if (capability === "read") return { effect: "allow", matched_rule: null, reason: "read is always allowed (short-circuit)" }
  const bucket = policy.buckets.get(bucketKey(principal, capability))
  const candidates: Array<CompiledRule> = []
  if (bucket !== undefined) {
    // Deny overrides whatever its specificity: the first matching deny in file order decides.
    for (const rule of bucket.denies) {
      if (rule.matches(subject)) return { effect: "deny", matched_rule: rule.id, reason: `denied by rule ${rule.id} (deny overrides)` }
    }
    for (const rule of bucket.others) if (rule.matches(subject)) candidates.push(rule)
  }
  if (candidates.length === 0) {
    return principal === "human"
      ? { effect: "allow", matched_rule: null, reason: "no rule matched; humans are not gated" }
      : {
          effect: policy.defaultAgentEffect,
          matched_rule: null,
          reason: `no rule matched; default_agent_effect = ${policy.defaultAgentEffect}`
        }
  }
  const reachable = subject.reachableDownstreams
  // Dominance is decided once per distinct constraint set present, not once per candidate.
  const present = [0, 0, 0, 0]
  const distinct: Array<number> = []
  for (const c of candidates) {
    if (!hasBit(present, c.constraints)) distinct.push(c.constraints)
    present[c.constraints >> 5]! |= 1 << (c.constraints & 31)
  }
  const dominated = [0, 0, 0, 0]
  for (const m of distinct) {
    if (STRICT_SUPERSETS[m]!.some((o) => hasBit(present, o))) dominated[m >> 5]! |= 1 << (m & 31)
  }
  let winner: CompiledRule | undefined
  let winnerRank = -1
  let survivors = 0
  let mixed = false
  let firstRank = -1
  let capped: CompiledRule | undefined
  for (const c of candidates) {
    const breached = breachesCeiling(c, reachable)
    if (breached && capped === undefined) capped = c
    if (hasBit(dominated, c.constraints)) continue
    const rank = breached ? RANK.require_review : RANK[c.effect]
    survivors++
    if (firstRank === -1) firstRank = rank
    else if (rank !== firstRank) mixed = true
    if (rank > winnerRank) {
      winner = c
      winnerRank = rank
    }
  }
  const top = winner!
  const effect: PolicyEffect = winnerRank === 2 ? "deny" : winnerRank === 1 ? "require_review" : "allow"
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
