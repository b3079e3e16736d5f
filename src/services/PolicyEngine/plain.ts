import type { PolicyEffect, PolicyRule, ScopeTable } from "../../schemas/policy"
import type { EvaluationSubject } from "./attributes"
import { constraintSet, strictlyWithin } from "./constraints"
import { globMatcher } from "./glob"

/**
 * The plain evaluator: the reference algorithm as a file-order scan over one bucket's rules.
 * It is the specification the bitset index (bucket.ts) must reproduce exactly, and the
 * evaluator small buckets use. It keeps no state between calls.
 */

export interface CompiledRule {
  /** Position in `[[policy.rules]]` (file order). */
  readonly id: number
  readonly rule: PolicyRule
  readonly effect: PolicyEffect
  /** Constraint set (constraints.ts): specificity compares these sets (a strict subset is dominated). */
  readonly constraints: number
  readonly maxDownstreams: number | undefined
  /** The scope as the plain evaluator tests it (globs compiled once). */
  readonly scopeTest: ScopeTest
}

/** A scope's predicates as data: one monomorphic matcher over these beat a closure per key about 2× (bench/policy.ts workloads). */
export interface ScopeTest {
  readonly contracted: boolean | undefined
  readonly layer: string | undefined
  readonly tagKeys: ReadonlyArray<string>
  readonly tagValues: ReadonlyArray<string>
  /** Any of these (none listed = no constraint). */
  readonly classifications: ReadonlyArray<string>
  /** None of these. */
  readonly excluded: ReadonlyArray<string>
  /** Any of these (none listed = no constraint). */
  readonly globs: ReadonlyArray<(name: string) => boolean>
}

/** The outcome of selection over one bucket (`undefined` = none). */
export interface Selection {
  /** The earliest matching deny (then nothing else is looked at). */
  readonly deny: CompiledRule | undefined
  /** The winner among the undominated candidates, and how many there were. */
  readonly winner: CompiledRule | undefined
  readonly survivors: number
  /** Survivors of both ranks (require_review-ranked and allow). */
  readonly mixed: boolean
  /** The earliest candidate (dominated or not) whose allow ceiling is breached; set only when the winner allows. */
  readonly capped: CompiledRule | undefined
}

const hasOwn = (record: object, key: string) => Object.prototype.hasOwnProperty.call(record, key)

export const scopeTest = (scope: ScopeTable): ScopeTest => {
  const tags = Object.entries(scope.tags ?? {})
  return {
    contracted: scope.contracted,
    layer: scope.layer,
    tagKeys: tags.map(([k]) => k),
    tagValues: tags.map(([, v]) => v),
    classifications: scope.classifications ?? [],
    excluded: scope.exclude_classifications ?? [],
    globs: (scope.models ?? []).map(globMatcher)
  }
}

/** True when the subject satisfies every key the scope sets (cheap keys first). */
export const scopeMatches = (test: ScopeTest, s: EvaluationSubject): boolean => {
  if (test.contracted !== undefined && test.contracted !== s.contracted) return false
  if (test.layer !== undefined && test.layer !== s.layer) return false
  const { tagKeys, tagValues, classifications, excluded, globs } = test
  for (let k = 0; k < tagKeys.length; k++) {
    if (!hasOwn(s.tags, tagKeys[k]!) || s.tags[tagKeys[k]!] !== tagValues[k]) return false
  }
  if (classifications.length > 0 && !anyIn(classifications, s.classifications)) return false
  if (excluded.length > 0 && anyIn(excluded, s.classifications)) return false
  if (globs.length === 0) return true
  for (let k = 0; k < globs.length; k++) if (globs[k]!(s.name)) return true
  return false
}

const anyIn = (xs: ReadonlyArray<string>, set: ReadonlySet<string>): boolean => {
  if (set.size === 0) return false
  for (let k = 0; k < xs.length; k++) if (set.has(xs[k]!)) return true
  return false
}

export const compileRule = (rule: PolicyRule, id: number): CompiledRule => {
  const scope = rule.scope ?? { any: true }
  return {
    id,
    rule,
    effect: rule.effect,
    constraints: constraintSet(scope, rule.capability),
    maxDownstreams: scope.max_downstreams,
    scopeTest: scopeTest(scope)
  }
}

/** An allow whose ceiling is below `limit` (the blast radius; Infinity when uncountable). */
export const breachedAt = (rule: CompiledRule, limit: number): boolean =>
  rule.effect === "allow" && rule.maxDownstreams !== undefined && rule.maxDownstreams < limit

/** True when another candidate's constraint set strictly contains `set`. */
const dominated = (set: number, sets: ReadonlyArray<number>): boolean => {
  for (let k = 0; k < sets.length; k++) if (strictlyWithin(set, sets[k]!)) return true
  return false
}

/** Nothing matched. */
export const NO_SELECTION: Selection = Object.freeze({ deny: undefined, winner: undefined, survivors: 0, mixed: false, capped: undefined })

/**
 * Deny override, specificity, most-restrictive then earliest, ceilings, over `rules` in file
 * order: the first matching deny decides; otherwise a candidate survives unless another
 * candidate's constraint set strictly contains its own; a require_review or breached allow
 * survivor outranks an allow one, the earliest in file order wins its rank; when the winner
 * allows, the earliest breached candidate (dominated ones included) caps it.
 */
export const selectPlain = (rules: ReadonlyArray<CompiledRule>, subject: EvaluationSubject): Selection => {
  const candidates: Array<CompiledRule> = []
  // Distinct constraint sets among the candidates: dominance only depends on these.
  const sets: Array<number> = []
  for (const rule of rules) {
    if (!scopeMatches(rule.scopeTest, subject)) continue
    if (rule.effect === "deny") return { ...NO_SELECTION, deny: rule }
    candidates.push(rule)
    if (!sets.includes(rule.constraints)) sets.push(rule.constraints)
  }
  if (candidates.length === 0) return NO_SELECTION
  const reachable = subject.reachableDownstreams
  const limit = reachable === undefined ? Infinity : reachable
  let review: CompiledRule | undefined
  let allow: CompiledRule | undefined
  let capped: CompiledRule | undefined
  let survivors = 0
  for (const rule of candidates) {
    const breached = breachedAt(rule, limit)
    capped ??= breached ? rule : undefined
    if (dominated(rule.constraints, sets)) continue
    survivors++
    // A breached allow ranks as require_review.
    if (breached || rule.effect === "require_review") review ??= rule
    else allow ??= rule
  }
  return {
    deny: undefined,
    winner: review ?? allow,
    survivors,
    mixed: review !== undefined && allow !== undefined,
    capped: review === undefined ? capped : undefined
  }
}
