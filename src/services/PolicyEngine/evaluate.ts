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

/**
 * The rules of one `principal|capability`, indexed by one equality predicate each so an
 * evaluation only tests rules that can match; order is restored through rule ids.
 */
export interface Bucket {
  readonly byLayer: ReadonlyMap<string, ReadonlyArray<CompiledRule>>
  readonly byTag: ReadonlyMap<string, ReadonlyArray<CompiledRule>>
  readonly byModelPrefix: ReadonlyMap<string, ReadonlyArray<CompiledRule>>
  readonly prefixLengths: ReadonlyArray<number>
  readonly rest: ReadonlyArray<CompiledRule>
}

export interface CompiledPolicy {
  readonly configured: boolean
  readonly defaultAgentEffect: PolicyEffect
  readonly rules: ReadonlyArray<CompiledRule>
  /** Rules per `principal|capability` (refinements included), deny rules indexed apart. */
  readonly buckets: ReadonlyMap<string, { readonly denies: Bucket; readonly others: Bucket }>
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

const literalPrefix = (glob: string): string => {
  const stop = glob.search(/[*?]/)
  return stop === -1 ? glob : glob.slice(0, stop)
}

const push = <K>(map: Map<K, Array<CompiledRule>>, key: K, rule: CompiledRule) => {
  const list = map.get(key)
  if (list === undefined) map.set(key, [rule])
  else list.push(rule)
}

const indexBucket = (rules: ReadonlyArray<CompiledRule>): Bucket => {
  const byLayer = new Map<string, Array<CompiledRule>>()
  const byTag = new Map<string, Array<CompiledRule>>()
  const byModelPrefix = new Map<string, Array<CompiledRule>>()
  const rest: Array<CompiledRule> = []
  for (const rule of rules) {
    const scope = rule.rule.scope ?? {}
    const tag = Object.entries(scope.tags ?? {})[0]
    const models = scope.models ?? []
    if (scope.layer !== undefined) push(byLayer, scope.layer, rule)
    else if (tag !== undefined) push(byTag, `${tag[0]}\u0000${tag[1]}`, rule)
    else if (models.length === 1 && literalPrefix(models[0]!) !== "") push(byModelPrefix, literalPrefix(models[0]!), rule)
    else rest.push(rule)
  }
  const prefixLengths = [...new Set([...byModelPrefix.keys()].map((k) => k.length))].sort((a, b) => a - b)
  return { byLayer, byTag, byModelPrefix, prefixLengths, rest }
}

/** Rules of a bucket that match the subject (any order). */
const matching = (bucket: Bucket, subject: EvaluationSubject): Array<CompiledRule> => {
  const out: Array<CompiledRule> = []
  const scan = (list: ReadonlyArray<CompiledRule> | undefined) => {
    if (list !== undefined) for (const rule of list) if (rule.matches(subject)) out.push(rule)
  }
  scan(bucket.rest)
  if (subject.layer !== undefined) scan(bucket.byLayer.get(subject.layer))
  if (bucket.byTag.size > 0) for (const k in subject.tags) scan(bucket.byTag.get(`${k}\u0000${subject.tags[k]}`))
  const name = subject.name
  for (const length of bucket.prefixLengths) {
    if (length > name.length) break
    scan(bucket.byModelPrefix.get(name.slice(0, length)))
  }
  return out
}

/** Compiles a `[policy]` block; `undefined` gives the default posture (no rules, agents review). */
export const compilePolicy = (block: PolicyBlock | undefined): CompiledPolicy => {
  const rules = (block?.rules ?? []).map(compileRule)
  const grouped = new Map<string, Array<CompiledRule>>()
  for (const rule of rules) {
    for (const covered of coveredCapabilities(rule.rule.capability)) {
      const key = bucketKey(rule.rule.principal, covered)
      const list = grouped.get(key) ?? []
      grouped.set(key, list)
      list.push(rule)
    }
  }
  const buckets = new Map<string, { denies: Bucket; others: Bucket }>()
  for (const [key, list] of grouped) {
    buckets.set(key, { denies: indexBucket(list.filter((r) => r.effect === "deny")), others: indexBucket(list.filter((r) => r.effect !== "deny")) })
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
  // Deny overrides whatever its specificity: the first matching deny in file order decides.
  let firstDeny: CompiledRule | undefined
  if (bucket !== undefined) for (const c of matching(bucket.denies, subject)) if (firstDeny === undefined || c.id < firstDeny.id) firstDeny = c
  if (firstDeny !== undefined) {
    return { effect: "deny", matched_rule: firstDeny.id, reason: `denied by rule ${firstDeny.id} (deny overrides)` }
  }
  const candidates = bucket === undefined ? [] : matching(bucket.others, subject)
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
    if (breached && (capped === undefined || c.id < capped.id)) capped = c
    if (hasBit(dominated, c.constraints)) continue
    const rank = breached ? RANK.require_review : RANK[c.effect]
    survivors++
    if (firstRank === -1) firstRank = rank
    else if (rank !== firstRank) mixed = true
    if (rank > winnerRank || (rank === winnerRank && c.id < winner!.id)) {
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
