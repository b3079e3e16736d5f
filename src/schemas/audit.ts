import { Schema } from "effect"
import { LedgerRow } from "./ledger"

/** Where `audit --verify` found the chain broken: the first row that does not recompute. */
export const ChainBreak = Schema.Struct({
  seq: Schema.Int,
  decision_ref: Schema.NullOr(Schema.String),
  expected_hash: Schema.NullOr(Schema.String),
  stored_hash: Schema.NullOr(Schema.String),
  reason: Schema.String
}).annotations({ identifier: "ChainBreak" })

/** `pcli audit --verify`: rows verified and the head hash a person pins (decisions.md 27). */
export const AuditVerifyOutput = Schema.Struct({
  command: Schema.Literal("audit_verify"),
  intact: Schema.Boolean,
  rows: Schema.Int,
  head_hash: Schema.String,
  first_bad: Schema.NullOr(ChainBreak)
}).annotations({ identifier: "AuditVerifyOutput" })
export type AuditVerifyOutput = typeof AuditVerifyOutput.Type

/** `pcli audit`: the decisions matched, oldest first; id-less rows an `--actor` filter skipped are counted. */
export const AuditListOutput = Schema.Struct({
  command: Schema.Literal("audit"),
  /** The `--since` bound as UTC, or null. */
  since: Schema.NullOr(Schema.String),
  actor: Schema.NullOr(Schema.String),
  product: Schema.NullOr(Schema.String),
  model: Schema.NullOr(Schema.String),
  entries: Schema.Array(LedgerRow),
  unattributed_skipped: Schema.Int
}).annotations({ identifier: "AuditListOutput" })
export type AuditListOutput = typeof AuditListOutput.Type

export const ScorecardDimension = Schema.Literal("principal", "rule", "scope")
export type ScorecardDimension = typeof ScorecardDimension.Type

/** One group's policy outcomes; rates are shares of its evaluations, 4 decimals. */
export const ScorecardGroup = Schema.Struct({
  key: Schema.String,
  evaluations: Schema.Int,
  allowed: Schema.Int,
  denied: Schema.Int,
  escalated: Schema.Int,
  acceptance_rate: Schema.Number,
  denial_rate: Schema.Number,
  escalation_rate: Schema.Number
}).annotations({ identifier: "ScorecardGroup" })
export type ScorecardGroup = typeof ScorecardGroup.Type

/** `pcli audit --scorecard`: only policy evaluations count (never freeze/unfreeze/verification/approval/refusal rows). */
export const AuditScorecardOutput = Schema.Struct({
  command: Schema.Literal("audit_scorecard"),
  by: ScorecardDimension,
  window: Schema.String,
  /** The window's start as UTC; null for `all`. */
  window_start: Schema.NullOr(Schema.String),
  evaluations: Schema.Int,
  groups: Schema.Array(ScorecardGroup)
}).annotations({ identifier: "AuditScorecardOutput" })
export type AuditScorecardOutput = typeof AuditScorecardOutput.Type
