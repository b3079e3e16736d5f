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
