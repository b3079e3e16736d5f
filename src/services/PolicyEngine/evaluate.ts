import type { Capability, PolicyBlock, PolicyEffect, PolicyRule, Principal, ScopeTable } from "../../schemas/policy"
import { REFINEMENTS } from "../../schemas/policy"
import type { EvaluationSubject } from "./attributes"
import { type Bits, buildRuleIndex, matchRules, type RuleIndex } from "./ruleIndex"

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
}

/**
 * The rules of one `principal|capability` (refinements included) in file order, with a
 * predicate index and per-rule columns so an evaluation touches no objects per rule.
 */
export interface Bucket {
  readonly rules: ReadonlyArray<CompiledRule>
  readonly index: RuleIndex
  /** Bits of the deny rules, or `undefined` when the bucket has none. */
  readonly denies: Bits | undefined
  readonly allows: Bits
  readonly reviews: Bits
  /** Each rule's constraint set, by position. */
  readonly constraints: Int32Array
  /** Distinct constraint sets of the bucket, and the bits of the rules carrying each. */
  readonly masks: Int32Array
  readonly maskBits: ReadonlyArray<Bits>
  /** Allow rules with a `max_downstreams`, by ascending ceiling. */
  readonly ceilingRules: Int32Array
  readonly ceilingValues: Float64Array
  /** Scratch sets (evaluation is synchronous, so never shared mid-use). */
  readonly survivors: Bits
  readonly breached: Bits
}

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

const bitsOf = (words: number, rules: ReadonlyArray<CompiledRule>, keep: (rule: CompiledRule) => boolean): Bits => {
  const bits = new Int32Array(words)
  rules.forEach((r, i) => {
    if (keep(r)) bits[i >> 5]! |= 1 << (i & 31)
  })
  return bits
}

const makeBucket = (rules: ReadonlyArray<CompiledRule>): Bucket => {
  const index = buildRuleIndex(rules.map((r) => r.rule.scope ?? { any: true }))
  const words = index.words
  const masks = [...new Set(rules.map((r) => r.constraints))]
  const ceilinged = rules
    .map((r, i) => [i, r.effect === "allow" ? r.maxDownstreams : undefined] as const)
    .filter((e): e is readonly [number, number] => e[1] !== undefined)
    .sort((a, b) => a[1] - b[1] || a[0] - b[0])
  return {
    rules,
    index,
    denies: rules.some((r) => r.effect === "deny") ? bitsOf(words, rules, (r) => r.effect === "deny") : undefined,
    allows: bitsOf(words, rules, (r) => r.effect === "allow"),
    reviews: bitsOf(words, rules, (r) => r.effect === "require_review"),
    constraints: Int32Array.from(rules, (r) => r.constraints),
    masks: Int32Array.from(masks),
    maskBits: masks.map((m) => bitsOf(words, rules, (r) => r.constraints === m)),
    ceilingRules: Int32Array.from(ceilinged, (e) => e[0]),
    ceilingValues: Float64Array.from(ceilinged, (e) => e[1]),
    survivors: new Int32Array(words),
    breached: new Int32Array(words)
  }
}

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

/** For each constraint set (7 bits), the sets that strictly contain it. */
const STRICT_SUPERSETS: ReadonlyArray<Int32Array> = Array.from({ length: 128 }, (_, m) =>
  Int32Array.from(Array.from({ length: 128 }, (_, o) => o).filter((o) => o !== m && (m & o) === m))
)

// Scratch for one evaluation (synchronous, never re-entered): flags per constraint set.
const present = new Uint8Array(128)
const dominated = new Uint8Array(128)
const distinct = new Int32Array(128)

const noMatch = (policy: CompiledPolicy, principal: Principal): Verdict =>
  principal === "human"
    ? { effect: "allow", matched_rule: null, reason: "no rule matched; humans are not gated" }
    : {
        effect: policy.defaultAgentEffect,
        matched_rule: null,
        reason: `no rule matched; default_agent_effect = ${policy.defaultAgentEffect}`
      }

/** Position of the lowest set bit of word `w` (non-zero `bits`); `-bits` never overflows int32. */
const lowestBit = (w: number, bits: number) => (w << 5) + 31 - Math.clz32(bits === -2147483648 ? bits : bits & -bits)

/** Position of the lowest set bit of `a & b`, or -1. */
const firstBit = (a: Int32Array, b: Int32Array): number => {
  for (let w = 0; w < a.length; w++) {
    const bits = a[w]! & b[w]!
    if (bits !== 0) return lowestBit(w, bits)
  }
  return -1
}


const popcount = (x: number): number => {
  x -= (x >>> 1) & 0x55555555
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333)
  return (Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24)
}

const intersects = (a: Int32Array, b: Int32Array): boolean => {
  for (let w = 0; w < a.length; w++) if ((a[w]! & b[w]!) !== 0) return true
  return false
}

const dominatedSet = (m: number): boolean => {
  const supersets = STRICT_SUPERSETS[m]!
  for (let k = 0; k < supersets.length; k++) if (present[supersets[k]!] === 1) return true
  return false
}

/** Survivors (candidates whose constraint set no present set strictly contains), candidate by candidate. */
const sparseSurvivors = (bucket: Bucket, matched: Bits): Bits => {
  const { constraints } = bucket
  let distinctCount = 0
  // Bits are visited high to low within a word: order is irrelevant here and `1 << 31` stays int32.
  for (let w = 0; w < matched.length; w++) {
    let bits = matched[w]!
    while (bits !== 0) {
      const b = 31 - Math.clz32(bits)
      bits ^= 1 << b
      const m = constraints[(w << 5) | b]!
      if (present[m] === 0) {
        present[m] = 1
        distinct[distinctCount++] = m
      }
    }
  }
  for (let d = 0; d < distinctCount; d++) {
    const m = distinct[d]!
    dominated[m] = dominatedSet(m) ? 1 : 0
  }
  const out = bucket.survivors
  out.set(matched)
  for (let w = 0; w < matched.length; w++) {
    let bits = matched[w]!
    while (bits !== 0) {
      const b = 31 - Math.clz32(bits)
      bits ^= 1 << b
      if (dominated[constraints[(w << 5) | b]!] === 1) out[w]! &= ~(1 << b)
    }
  }
  for (let d = 0; d < distinctCount; d++) present[distinct[d]!] = 0
  return out
}

/** Survivors, constraint set by constraint set (each set's rules are one bitset). */
const denseSurvivors = (bucket: Bucket, matched: Bits): Bits => {
  const { masks, maskBits } = bucket
  let distinctCount = 0
  for (let j = 0; j < masks.length; j++) {
    if (intersects(matched, maskBits[j]!)) {
      present[masks[j]!] = 1
      distinct[distinctCount++] = j
    }
  }
  const out = bucket.survivors
  out.set(matched)
  for (let d = 0; d < distinctCount; d++) {
    const j = distinct[d]!
    if (dominatedSet(masks[j]!)) {
      const drop = maskBits[j]!
      for (let w = 0; w < out.length; w++) out[w]! &= ~drop[w]!
    }
  }
  for (let d = 0; d < distinctCount; d++) present[masks[distinct[d]!]!] = 0
  return out
}

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
  const matched = matchRules(bucket.index, subject)
  // Deny overrides whatever its specificity: the first matching deny in file order decides.
  if (bucket.denies !== undefined) {
    const deny = firstBit(matched, bucket.denies)
    if (deny !== -1) {
      const id = bucket.rules[deny]!.id
      return { effect: "deny", matched_rule: id, reason: `denied by rule ${id} (deny overrides)` }
    }
  }
  let candidates = 0
  for (let w = 0; w < matched.length; w++) candidates += popcount(matched[w]!)
  if (candidates === 0) return noMatch(policy, principal)
  // Few candidates: walk them; many: test whole constraint-set bitsets (cost independent of matches).
  const survivorsBits = candidates * 4 < bucket.masks.length * matched.length ? sparseSurvivors(bucket, matched) : denseSurvivors(bucket, matched)
  // Breached ceilings: ceiling < reachable; an uncountable blast radius breaches every ceiling.
  const reachable = subject.reachableDownstreams
  const limit = reachable === undefined ? Infinity : reachable
  const breached = bucket.breached
  breached.fill(0)
  const { ceilingRules, ceilingValues } = bucket
  for (let k = 0; k < ceilingRules.length && ceilingValues[k]! < limit; k++) {
    const i = ceilingRules[k]!
    breached[i >> 5]! |= 1 << (i & 31)
  }
  // Most restrictive wins (a breached allow counts as require_review), earliest first.
  const { allows, reviews } = bucket
  let survivors = 0
  let firstReview = -1
  let firstAllow = -1
  let capped = -1
  for (let w = 0; w < matched.length; w++) {
    const live = survivorsBits[w]!
    const hot = breached[w]!
    if (capped === -1 && (matched[w]! & hot) !== 0) capped = lowestBit(w, matched[w]! & hot)
    if (live === 0) continue
    survivors += popcount(live)
    const review = (reviews[w]! | hot) & live
    const allow = allows[w]! & ~hot & live
    if (firstReview === -1 && review !== 0) firstReview = lowestBit(w, review)
    if (firstAllow === -1 && allow !== 0) firstAllow = lowestBit(w, allow)
  }
  const mixed = firstReview !== -1 && firstAllow !== -1
  const winnerRank = firstReview !== -1 ? RANK.require_review : RANK.allow
  const top = bucket.rules[firstReview !== -1 ? firstReview : firstAllow]!
  const effect: PolicyEffect = winnerRank === 1 ? "require_review" : "allow"
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
