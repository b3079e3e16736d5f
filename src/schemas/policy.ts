import { Either, ParseResult, Schema } from "effect"
import { doc } from "./doc"
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
  failures: Schema.propertySignature(Schema.Int.pipe(Schema.filter((n) => n >= 1 || `failures must be at least 1, got ${n}`))).annotations(
    doc("Failed applies by agents allowed within the window before the rule stops allowing", 3)
  ),
  window: Schema.propertySignature(BudgetWindow).annotations(doc("`<N>d` or `<N>h`", "7d"))
})
export type AutonomyBudget = typeof AutonomyBudget.Type

/** The canonical rule scope: the AND of every key that is set (an empty list counts as unset). */
export const ScopeTable = Schema.Struct({
  any: Schema.optional(Schema.Literal(true).annotations({ message: () => "scope.any may only be true (omit it otherwise)" })).annotations(
    doc("Every model (not combinable with other keys)", true as const)
  ),
  models: Schema.optional(Schema.Array(Schema.String)).annotations(doc("Model names or globs", ["stg_*"])),
  tags: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String })).annotations(
    doc("Models carrying all these tags", { domain: "sales" })
  ),
  classifications: Schema.optional(Schema.Array(Schema.String)).annotations(
    doc("Models with a column of one of these classes", ["pii"])
  ),
  exclude_classifications: Schema.optional(Schema.Array(Schema.String)).annotations(
    doc("Models with no column of these classes", ["pii"])
  ),
  contracted: Schema.optional(Schema.Boolean).annotations(doc("Models with (true) or without (false) a `.contract.toml`", true)),
  layer: Schema.optional(Schema.String).annotations(doc("Models whose `layer` tag equals this", "mart")),
  /** An allow ceiling on the transitive downstream count, never a predicate. */
  max_downstreams: Schema.optional(Schema.Int.pipe(Schema.nonNegative())).annotations(
    doc("An allow ceiling: the rule allows only while the model has at most this many downstream models", 5)
  )
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
  principal: Schema.propertySignature(Principal).annotations(doc("Who the rule is for: `human` or `agent`", "agent")),
  capability: Schema.propertySignature(Capability).annotations(doc(`What they do: ${CAPABILITIES.join(", ")}`, "apply")),
  effect: Schema.propertySignature(PolicyEffect).annotations(doc("`allow`, `require_review` (a human must approve the plan) or `deny`", "deny")),
  scope: Schema.optional(Scope).annotations(
    doc("Which models: an inline table (keys below, all must match) or a selector string like `layer=gold`", "layer=mart")
  ),
  verify_after: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] }).annotations(
    doc("Checks run after an apply the rule admitted (`row_count`, `contract`, …)", ["contract"])
  ),
  autonomy_budget: Schema.optional(AutonomyBudget).annotations(doc("Limits an `allow` for agents by recent failures")),
  /** Parsed and ignored; never printed (it may hold a resolved secret). */
  conditions: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })).annotations(doc("Accepted and ignored"))
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
  name: Schema.propertySignature(Schema.String).annotations(doc("What the scenario shows", "agents cannot apply to a contracted model")),
  principal: Schema.propertySignature(Principal).annotations(doc("`human` or `agent`", "agent")),
  capability: Schema.propertySignature(Capability).annotations(doc("The capability asked for", "apply")),
  expect: Schema.propertySignature(PolicyEffect).annotations(doc("The effect the evaluator must give", "deny")),
  model: Schema.optionalWith(Schema.String, { default: () => "" }).annotations(doc("Model name the scenario is about", "stg_customers")),
  tags: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.String }), { default: () => ({}) }).annotations(
    doc("The model's tags", { layer: "staging" })
  ),
  classifications: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] }).annotations(
    doc("Classes of the model's columns", ["pii"])
  ),
  contracted: Schema.optionalWith(Schema.Boolean, { default: () => false }).annotations(doc("Whether the model is contracted", true)),
  layer: Schema.optional(Schema.String).annotations(doc("The model's layer tag", "staging")),
  /** Informational only. */
  downstreams: Schema.optionalWith(Schema.Int.pipe(Schema.nonNegative()), { default: () => 0 }).annotations(doc("Informational only", 0)),
  /** Unset means uncomputable: a `max_downstreams` ceiling then fails closed. */
  reachable_downstreams: Schema.optional(Schema.Int.pipe(Schema.nonNegative())).annotations(
    doc("Downstream models `max_downstreams` compares with; unset means unknown (the ceiling then fails closed)", 2)
  )
})
export type PolicyTestCase = typeof PolicyTestCase.Type

/** The `[policy]` table of pcli.toml. */
export const PolicyBlock = Schema.Struct({
  version: Schema.propertySignature(Schema.Number.pipe(Schema.filter((v) => v === 1 || `policy.version must be 1, got ${v}`))).annotations(
    doc("Always 1", 1)
  ),
  default_agent_effect: Schema.optionalWith(PolicyEffect, { default: () => "require_review" as const }).annotations(
    doc("Effect for an agent when no rule matches (humans default to allow)", "require_review")
  ),
  rules: Schema.optionalWith(Schema.Array(PolicyRule), { default: () => [] }).annotations(
    doc("`[[policy.rules]]`: any matching deny wins; otherwise the most specific matching rule decides. A rule's id is its 0-based position")
  ),
  /** Also write durable freeze markers to the `[state]` object tier (needs one). */
  freeze_marker_writes: Schema.optionalWith(Schema.Boolean, { default: () => false }).annotations(
    doc("Also write freeze markers to the `[state]` object tier (needs `object_store_url`)", false)
  ),
  tests: Schema.optionalWith(Schema.Array(PolicyTestCase), { default: () => [] }).annotations(
    doc("`[[policy.tests]]`: scenarios `pcli policy test` checks against the rules")
  )
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
  allow_unmasked: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] }).annotations(
    doc("Classification tags that may stay unmasked (silences warning W004)", ["internal"])
  )
})
export type ClassificationsBlock = typeof ClassificationsBlock.Type
