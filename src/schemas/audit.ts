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

/**
 * A ledger head held outside the store (decisions 35): the warehouse record, its copy in the object tier, or `--expect-head`.
 * `other_store`: the record names another state store; `unreadable`: the warehouse could not be read.
 */
export const HeadWitness = Schema.Struct({
  source: Schema.Literal("warehouse", "object_tier", "expect_head"),
  seq: Schema.NullOr(Schema.Int),
  hash: Schema.NullOr(Schema.String),
  status: Schema.Literal("in_chain", "not_in_chain", "other_store", "unreadable"),
  detail: Schema.optional(Schema.String)
}).annotations({ identifier: "HeadWitness" })
export type HeadWitness = typeof HeadWitness.Type

/** `pcli audit --verify`: rows verified and the head hash a person pins (decisions.md 27). */
export const AuditVerifyOutput = Schema.Struct({
  command: Schema.Literal("audit_verify"),
  intact: Schema.Boolean,
  rows: Schema.Int,
  head_hash: Schema.String,
  first_bad: Schema.NullOr(ChainBreak),
  /** The last row's seq when the chain is intact: with `head_hash`, the `--expect-head SEQ:HASH` to pin. */
  head_seq: Schema.optional(Schema.Int),
  /** The heads witnessed outside the store, each checked against the chain; absent when there are none. */
  witnesses: Schema.optional(Schema.Array(HeadWitness))
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
  unattributed_skipped: Schema.Int,
  /** Paged form only (`--limit`): the cursor of the next page, null on the last one. */
  next_cursor: Schema.optional(Schema.NullOr(Schema.String))
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

const link = {
  availability: Schema.Literal("available", "no_data", "unavailable"),
  note: Schema.optional(Schema.String)
} as const

export const CustodyRun = Schema.Struct({
  run_id: Schema.String,
  status: Schema.String,
  started_at: Schema.String,
  finished_at: Schema.String,
  trigger: Schema.String,
  plan_id: Schema.NullOr(Schema.String),
  models_total: Schema.Int,
  models_failed: Schema.Int,
  models_skipped: Schema.Int
}).annotations({ identifier: "CustodyRun" })

export const CustodyApproval = Schema.Struct({
  /** The approving principal, `class(id)`. */
  approver: Schema.String,
  /** The approver's git identity, recorded on the approval row beside the principal. */
  git_identity: Schema.optional(Schema.String),
  approved_at: Schema.String,
  decision_ref: Schema.String
}).annotations({ identifier: "CustodyApproval" })

export const CustodyChange = Schema.Struct({ model: Schema.String, change_class: Schema.String }).annotations({ identifier: "CustodyChange" })

export const CustodyVerification = Schema.Struct({
  timestamp: Schema.String,
  decision_ref: Schema.String,
  plan_id: Schema.NullOr(Schema.String),
  rule_id: Schema.NullOr(Schema.Int),
  passed: Schema.Boolean,
  reason: Schema.NullOr(Schema.String)
}).annotations({ identifier: "CustodyVerification" })

/** `pcli audit --for <subject>`: who proposed, what policy said, what changed, what ran, what was verified, what it reaches. */
export const CustodyOutput = Schema.Struct({
  command: Schema.Literal("audit_custody"),
  subject: Schema.String,
  subject_kind: Schema.Literal("plan", "run", "model"),
  /** True for a plan or a run; for a model, when a decision, a run or the graph knows it. */
  resolved: Schema.Boolean,
  /** Policy decisions (every kind but verification), newest first. */
  decisions: Schema.Struct({ ...link, total: Schema.Int, entries: Schema.Array(LedgerRow) }),
  plan: Schema.Struct({
    ...link,
    plan_id: Schema.NullOr(Schema.String),
    kind: Schema.NullOr(Schema.String),
    /** The proposer: `class(id)` as the plan file records it. */
    proposer: Schema.NullOr(Schema.String),
    created_at: Schema.NullOr(Schema.String),
    changes: Schema.Array(CustodyChange),
    models: Schema.Array(Schema.String),
    approval: Schema.NullOr(CustodyApproval)
  }),
  runs: Schema.Struct({ ...link, total: Schema.Int, runs: Schema.Array(CustodyRun) }),
  verify_after: Schema.Struct({ ...link, total: Schema.Int, entries: Schema.Array(CustodyVerification) }),
  blast_radius: Schema.Struct({
    ...link,
    models: Schema.Array(Schema.String),
    direct: Schema.Array(Schema.String),
    transitive: Schema.Array(Schema.String),
    total: Schema.Int
  })
}).annotations({ identifier: "CustodyOutput" })
export type CustodyOutput = typeof CustodyOutput.Type
