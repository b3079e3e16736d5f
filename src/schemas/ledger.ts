import { Schema } from "effect"

/** Principal classes: what policy gates enforce (and what a rule or a freeze names). */
export const PrincipalClass = Schema.Literal("human", "agent").annotations({
  identifier: "PrincipalClass",
  message: (issue) => ({ message: `unknown principal ${JSON.stringify(issue.actual)} (expected human or agent)`, override: true })
})
export type PrincipalClass = typeof PrincipalClass.Type

/** Where a principal id came from (decisions.md 3, 26); `role`: the PostgreSQL store's connection role (decisions.md 36). */
export const PrincipalIdSource = Schema.Literal("flag", "env", "mcp_profile", "default", "role").annotations({ identifier: "PrincipalIdSource" })
export type PrincipalIdSource = typeof PrincipalIdSource.Type

export const PolicyEffect = Schema.Literal("allow", "require_review", "deny").annotations({
  identifier: "PolicyEffect",
  message: (issue) => ({ message: `unknown effect ${JSON.stringify(issue.actual)} (expected allow, require_review or deny)`, override: true })
})
export type PolicyEffect = typeof PolicyEffect.Type

/**
 * Row kinds. `freeze`, `unfreeze`, `verification`, `approval` and `refusal` are records, never
 * counted as policy evaluations (decisions.md 9). `refusal`: an action refused before any rule
 * applies (an agent's unfreeze, decisions.md 31); it lifts and imposes nothing.
 */
export const LedgerKind = Schema.Literal("evaluation", "escalation", "freeze", "unfreeze", "verification", "approval", "refusal").annotations({
  identifier: "LedgerKind"
})
export type LedgerKind = typeof LedgerKind.Type

/** One decision as stored and as reported. `decision_ref` is its stable public reference. */
export const LedgerRow = Schema.Struct({
  decision_ref: Schema.String,
  kind: LedgerKind,
  /** RFC 3339, UTC, millisecond precision. */
  timestamp: Schema.String,
  /** The actor's class: who made the decision or asked for it. */
  principal: PrincipalClass,
  /** The actor's self-asserted id; null for rows written before ids existed. */
  principal_id: Schema.NullOr(Schema.String),
  principal_id_source: Schema.NullOr(PrincipalIdSource),
  /** True only when the database verified the id (its source is `role`); self-asserted ids are false. */
  principal_id_verified: Schema.Boolean,
  /** The principal a freeze, unfreeze or refusal is about; null on other rows. */
  target_principal: Schema.NullOr(PrincipalClass),
  capability: Schema.NullOr(Schema.String),
  /** Target model; for freeze/unfreeze/refusal rows the scope selector string; `*` for verification. */
  model: Schema.NullOr(Schema.String),
  effect: Schema.NullOr(PolicyEffect),
  rule_id: Schema.NullOr(Schema.Int),
  plan_id: Schema.NullOr(Schema.String),
  reason: Schema.NullOr(Schema.String)
}).annotations({ identifier: "LedgerRow" })
export type LedgerRow = typeof LedgerRow.Type
