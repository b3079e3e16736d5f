import { Either, ParseResult, Schema } from "effect"
import { PolicyEffect, PrincipalClass } from "./ledger"

/** Principal classes a policy rule can name (defined once, with the ledger's literals). */
export const Principal = PrincipalClass
export type Principal = PrincipalClass

export { PolicyEffect }

export const CAPABILITIES = [
  "read",
  "propose",
  "apply",
  "promote",
  "backfill",
  "gc",
  "restore",
  "retry",
  "quarantine",
  "schema_change.additive",
  "schema_change.breaking",
  "value_change"
] as const
export const Capability = Schema.Literal(...CAPABILITIES).annotations({
  message: (issue) => ({ message: `unknown capability ${JSON.stringify(issue.actual)} (expected one of ${CAPABILITIES.join(", ")})`, override: true })
})
export type Capability = typeof Capability.Type

/** The capabilities a bare `apply` or `promote` rule also covers. */
export const REFINEMENTS: ReadonlyArray<Capability> = ["schema_change.additive", "schema_change.breaking", "value_change"]

const WINDOW = /^(\d+)([dh])$/i

/** `"<N>d"` / `"<N>h"` → milliseconds; `undefined` when malformed or not positive. */
export const windowMillis = (window: string): number | undefined => {
  const m = WINDOW.exec(window)
  if (m === null) return undefined
  const n = Number(m[1])
  if (!Number.isSafeInteger(n) || n <= 0) return undefined
  return n * (m[2]!.toLowerCase() === "d" ? 86_400_000 : 3_600_000)
}

export const BudgetWindow = Schema.String.pipe(
  Schema.filter((w) => windowMillis(w) !== undefined || `window must be "<N>d" or "<N>h" with N ≥ 1, got "${w}"`)
)

export const AutonomyBudget = Schema.Struct({
  failures: Schema.Int.pipe(Schema.filter((n) => n >= 1 || `failures must be at least 1, got ${n}`)),
  window: BudgetWindow
})
export type AutonomyBudget = typeof AutonomyBudget.Type

/** The canonical rule scope: the AND of every key that is set (an empty list counts as unset). */
export const ScopeTable = Schema.Struct({
  any: Schema.optional(Schema.Literal(true).annotations({ message: () => "scope.any may only be true (omit it otherwise)" })),
  models: Schema.optional(Schema.Array(Schema.String)),
  tags: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String })),
  classifications: Schema.optional(Schema.Array(Schema.String)),
  exclude_classifications: Schema.optional(Schema.Array(Schema.String)),
  contracted: Schema.optional(Schema.Boolean),
  layer: Schema.optional(Schema.String),
  /** An allow ceiling on the transitive downstream count, never a predicate. */
  max_downstreams: Schema.optional(Schema.Int.pipe(Schema.nonNegative()))
})
export type ScopeTable = typeof ScopeTable.Type

/** `scope = "layer=gold"`: a one-predicate shorthand in the freeze-selector grammar. */
export const selectorToScope = (text: string): Either.Either<ScopeTable, string> => {
  const forms = "any | layer=<n> | model=<glob> | classification=<v> | tag=<k>=<v>"
  if (text === "any") return Either.right({ any: true })
  const eq = text.indexOf("=")
  const head = eq === -1 ? text : text.slice(0, eq)
  const rest = eq === -1 ? "" : text.slice(eq + 1)
  if (eq !== -1 && rest !== "") {
    if (head === "layer") return Either.right({ layer: rest })
    if (head === "model") return Either.right({ models: [rest] })
    if (head === "classification") return Either.right({ classifications: [rest] })
    if (head === "tag") {
      const inner = rest.indexOf("=")
      if (inner > 0) return Either.right({ tags: { [rest.slice(0, inner)]: rest.slice(inner + 1) } })
      return Either.left(`scope "${text}": a rule's tag shorthand needs a value (tag=<k>=<v>); tag=<k> is a freeze-only selector`)
    }
  }
  return Either.left(`scope "${text}" is not a selector: expected one of ${forms}`)
}

/** A scope is an inline table, or a string in the selector grammar mapped onto the table. */
export const Scope = Schema.transformOrFail(Schema.Unknown, Schema.typeSchema(ScopeTable), {
  strict: true,
  decode: (input, options, ast) =>
    typeof input === "string"
      ? Either.match(selectorToScope(input), {
          onLeft: (detail) => ParseResult.fail(new ParseResult.Type(ast, input, detail)),
          onRight: ParseResult.succeed
        })
      : ParseResult.decodeUnknown(ScopeTable)(input, options),
  encode: (scope) => ParseResult.succeed(scope)
})

/** Scope keys that constrain a match (`max_downstreams` is not one, `any` adds none). */
export const scopeIsEmpty = (scope: ScopeTable): boolean =>
  scope.any !== true &&
  (scope.models ?? []).length === 0 &&
  Object.keys(scope.tags ?? {}).length === 0 &&
  (scope.classifications ?? []).length === 0 &&
  (scope.exclude_classifications ?? []).length === 0 &&
  scope.contracted === undefined &&
  scope.layer === undefined &&
  scope.max_downstreams === undefined

const scopeMixesAny = (scope: ScopeTable): boolean =>
  scope.any === true &&
  ((scope.models ?? []).length > 0 ||
    Object.keys(scope.tags ?? {}).length > 0 ||
    (scope.classifications ?? []).length > 0 ||
    (scope.exclude_classifications ?? []).length > 0 ||
    scope.contracted !== undefined ||
    scope.layer !== undefined ||
    scope.max_downstreams !== undefined)

/** One `[[policy.rules]]` entry; its id is its 0-based position in the file. */
export const PolicyRule = Schema.Struct({
  principal: Principal,
  capability: Capability,
  effect: PolicyEffect,
  scope: Schema.optional(Scope),
  verify_after: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] }),
  autonomy_budget: Schema.optional(AutonomyBudget),
  /** Parsed and ignored; never printed (it may hold a resolved secret). */
  conditions: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
}).pipe(
  Schema.filter((rule) => {
    if (rule.scope === undefined) return "rule has no scope (the default is not `any`; write scope = { any = true })"
    if (scopeIsEmpty(rule.scope)) return "rule has an empty scope (write scope = { any = true } to match every model)"
    if (scopeMixesAny(rule.scope)) return "scope `any` cannot be combined with other scope keys"
    return true
  })
)
export type PolicyRule = typeof PolicyRule.Type

/** One `[[policy.tests]]` scenario, run by `policy test` through the real evaluator. */
export const PolicyTestCase = Schema.Struct({
  name: Schema.String,
  principal: Principal,
  capability: Capability,
  expect: PolicyEffect,
  model: Schema.optionalWith(Schema.String, { default: () => "" }),
  tags: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.String }), { default: () => ({}) }),
  classifications: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] }),
  contracted: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  layer: Schema.optional(Schema.String),
  /** Informational only. */
  downstreams: Schema.optionalWith(Schema.Int.pipe(Schema.nonNegative()), { default: () => 0 }),
  /** Unset means uncomputable: a `max_downstreams` ceiling then fails closed. */
  reachable_downstreams: Schema.optional(Schema.Int.pipe(Schema.nonNegative()))
})
export type PolicyTestCase = typeof PolicyTestCase.Type

/** The `[policy]` table of pcli.toml. */
export const PolicyBlock = Schema.Struct({
  version: Schema.Number.pipe(Schema.filter((v) => v === 1 || `policy.version must be 1, got ${v}`)),
  default_agent_effect: Schema.optionalWith(PolicyEffect, { default: () => "require_review" as const }),
  rules: Schema.optionalWith(Schema.Array(PolicyRule), { default: () => [] }),
  /** Also write durable freeze markers to the `[state]` object tier (needs one). */
  freeze_marker_writes: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  tests: Schema.optionalWith(Schema.Array(PolicyTestCase), { default: () => [] })
})
export type PolicyBlock = typeof PolicyBlock.Type

export const MaskStrategy = Schema.Literal("hash", "redact", "partial", "none").annotations({
  message: (issue) => ({ message: `unknown mask strategy ${JSON.stringify(issue.actual)} (expected hash, redact, partial or none)`, override: true })
})
export type MaskStrategy = typeof MaskStrategy.Type

/** `[mask]`: tag → strategy, plus `[mask.<env>]` tables of per-environment overrides. */
export const MaskBlock = Schema.Record({
  key: Schema.String,
  value: Schema.Union(MaskStrategy, Schema.Record({ key: Schema.String, value: MaskStrategy }))
})
export type MaskBlock = typeof MaskBlock.Type

/** `[classifications]`: tags that may stay unmasked (silences W004, enforces nothing). */
export const ClassificationsBlock = Schema.Struct({
  allow_unmasked: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] })
})
export type ClassificationsBlock = typeof ClassificationsBlock.Type
