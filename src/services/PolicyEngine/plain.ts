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
  /** The scope as one predicate, globs compiled once. */
  readonly matches: (subject: EvaluationSubject) => boolean
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

const always = () => true

/** One check per scope key the rule sets (cheap ones first); a scope with none matches everything. */
export const scopeMatcher = (scope: ScopeTable): ((subject: EvaluationSubject) => boolean) => {
  const checks: Array<(s: EvaluationSubject) => boolean> = []
  const { contracted, layer } = scope
  if (contracted !== undefined) checks.push((s) => s.contracted === contracted)
  if (layer !== undefined) checks.push((s) => s.layer === layer)
  const tags = Object.entries(scope.tags ?? {})
  if (tags.length > 0) checks.push((s) => tags.every(([k, v]) => hasOwn(s.tags, k) && s.tags[k] === v))
  const wanted = scope.classifications ?? []
  if (wanted.length > 0) checks.push((s) => wanted.some((c) => s.classifications.has(c)))
  const excluded = scope.exclude_classifications ?? []
  if (excluded.length > 0) checks.push((s) => !excluded.some((c) => s.classifications.has(c)))
  const globs = (scope.models ?? []).map(globMatcher)
  if (globs.length > 0) checks.push((s) => globs.some((glob) => glob(s.name)))
  if (checks.length === 0) return always
  if (checks.length === 1) return checks[0]!
  return (s) => checks.every((check) => check(s))
}

export const compileRule = (rule: PolicyRule, id: number): CompiledRule => {
  const scope = rule.scope ?? { any: true }
  return {
    id,
    rule,
    effect: rule.effect,
    constraints: constraintSet(scope, rule.capability),
    maxDownstreams: scope.max_downstreams,
    matches: scopeMatcher(scope)
  }
}

/** An allow whose ceiling is below `limit` (the blast radius; Infinity when uncountable). */
export const breachedAt = (rule: CompiledRule, limit: number): boolean =>
  rule.effect === "allow" && rule.maxDownstreams !== undefined && rule.maxDownstreams < limit

/** Nothing matched. */
export const NO_SELECTION: Selection = { deny: undefined, winner: undefined, survivors: 0, mixed: false, capped: undefined }

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
    if (!rule.matches(subject)) continue
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
    if (sets.some((other) => strictlyWithin(rule.constraints, other))) continue
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
