import { Schema } from "effect"
import { FreshnessCheck } from "./freshness"
import { PolicyEffect, PrincipalClass } from "./ledger"

/** `available`: signal in the window; `no_data`: the source exists but the window is empty; `unavailable`: nothing records this signal. */
export const Availability = Schema.Literal("available", "no_data", "unavailable").annotations({ identifier: "Availability" })
export type Availability = typeof Availability.Type

export const BriefSince = Schema.Literal("last", "24h", "7d").annotations({ identifier: "BriefSince" })
export type BriefSince = typeof BriefSince.Type

const section = { availability: Availability, note: Schema.optional(Schema.String) } as const

/** A review-gated plan still waiting for a marker, found from the ledger (an escalation with no approval row). */
export const PendingEscalation = Schema.Struct({
  plan_id: Schema.String,
  escalated_at: Schema.String,
  decision_ref: Schema.String,
  principal: PrincipalClass,
  principal_id: Schema.NullOr(Schema.String),
  capability: Schema.NullOr(Schema.String),
  model: Schema.NullOr(Schema.String),
  reason: Schema.NullOr(Schema.String)
}).annotations({ identifier: "PendingEscalation" })
export type PendingEscalation = typeof PendingEscalation.Type

/** The review queue over the whole ledger: a pending escalation from before the window is still listed. */
export const EscalationsSection = Schema.Struct({
  ...section,
  ranking: Schema.Literal("recency"),
  total: Schema.Int,
  pending: Schema.Array(PendingEscalation)
}).annotations({ identifier: "EscalationsSection" })

const Tally = { total: Schema.Int, allow: Schema.Int, require_review: Schema.Int, deny: Schema.Int } as const

export const PrincipalActivity = Schema.Struct({
  /** `class(id)`, or `class(unrecorded)` for rows written without an id. */
  principal: Schema.String,
  ...Tally
}).annotations({ identifier: "PrincipalActivity" })
export type PrincipalActivity = typeof PrincipalActivity.Type

export const BriefDecision = Schema.Struct({
  timestamp: Schema.String,
  decision_ref: Schema.String,
  plan_id: Schema.NullOr(Schema.String),
  principal: Schema.String,
  capability: Schema.NullOr(Schema.String),
  model: Schema.NullOr(Schema.String),
  effect: Schema.NullOr(PolicyEffect),
  rule_id: Schema.optional(Schema.Int),
  reason: Schema.NullOr(Schema.String)
}).annotations({ identifier: "BriefDecision" })
export type BriefDecision = typeof BriefDecision.Type

/** Policy evaluations in the window (never freeze, unfreeze, verification, approval or refusal rows). */
export const AgentActivitySection = Schema.Struct({
  ...section,
  ...Tally,
  by_principal: Schema.Array(PrincipalActivity),
  decisions: Schema.Array(BriefDecision)
}).annotations({ identifier: "AgentActivitySection" })

export const BriefRun = Schema.Struct({
  run_id: Schema.String,
  status: Schema.String,
  started_at: Schema.String,
  finished_at: Schema.String,
  trigger: Schema.String,
  plan_id: Schema.NullOr(Schema.String),
  models_total: Schema.Int,
  models_failed: Schema.Int,
  models_skipped: Schema.Int
}).annotations({ identifier: "BriefRun" })
export type BriefRun = typeof BriefRun.Type

export const RunsSection = Schema.Struct({
  ...section,
  total: Schema.Int,
  succeeded: Schema.Int,
  failed: Schema.Int,
  runs: Schema.Array(BriefRun)
}).annotations({ identifier: "RunsSection" })

/** A model execution that failed or carried test / contract warnings in the window. */
export const QualityFinding = Schema.Struct({
  run_id: Schema.String,
  model: Schema.String,
  status: Schema.String,
  error_code: Schema.NullOr(Schema.String),
  detail: Schema.String
}).annotations({ identifier: "QualityFinding" })
export type QualityFinding = typeof QualityFinding.Type

export const QualitySection = Schema.Struct({
  ...section,
  executions: Schema.Int,
  failed: Schema.Int,
  warnings: Schema.Int,
  findings: Schema.Array(QualityFinding)
}).annotations({ identifier: "QualitySection" })

export const RunCost = Schema.Struct({ run_id: Schema.String, duration_ms: Schema.Int, rows_affected: Schema.Int }).annotations({ identifier: "RunCost" })

/** Cost as the store records it: execution time and rows written, not money. */
export const CostSection = Schema.Struct({
  ...section,
  duration_ms: Schema.Int,
  rows_affected: Schema.Int,
  runs: Schema.Array(RunCost)
}).annotations({ identifier: "CostSection" })

export const BriefFreeze = Schema.Struct({
  principal: Schema.NullOr(PrincipalClass),
  scope: Schema.String,
  frozen_at: Schema.NullOr(Schema.String),
  plan_id: Schema.NullOr(Schema.String)
}).annotations({ identifier: "BriefFreeze" })

/** Current state over the whole ledger: freezes in force. */
export const AutonomySection = Schema.Struct({ ...section, active_freezes: Schema.Array(BriefFreeze) }).annotations({ identifier: "AutonomySection" })

/** A section pcli has no recorded signal for (drift, freshness, scheduler): availability and a note only. */
export const SignalSection = Schema.Struct(section).annotations({ identifier: "SignalSection" })

/** The latest freshness check of each model checked in the window. */
export const FreshnessSection = Schema.Struct({ ...section, checks: Schema.Array(FreshnessCheck) }).annotations({ identifier: "FreshnessSection" })

/** `pcli brief`: a digest of what happened since a point, every event citing a run_id, plan_id or decision_ref. */
export const BriefOutput = Schema.Struct({
  command: Schema.Literal("brief"),
  generated_at: Schema.String,
  since_mode: BriefSince,
  /** Omitted only on a first-ever `last`, which covers all history. */
  since_timestamp: Schema.optional(Schema.String),
  /** The decision ledger's head hash, for a person to pin. */
  ledger_head_hash: Schema.String,
  escalations: EscalationsSection,
  agent_activity: AgentActivitySection,
  runs: RunsSection,
  drift: SignalSection,
  freshness: FreshnessSection,
  quality: QualitySection,
  cost: CostSection,
  autonomy: AutonomySection,
  scheduler: SignalSection
}).annotations({ identifier: "BriefOutput" })
export type BriefOutput = typeof BriefOutput.Type
