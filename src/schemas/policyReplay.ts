import { Schema } from "effect"
import { PolicyEffect, PrincipalClass } from "./ledger"

export const ReplayVerdict = Schema.Struct({ effect: PolicyEffect, rule_id: Schema.NullOr(Schema.Int) }).annotations({ identifier: "ReplayVerdict" })

/** Recorded evaluations of one (principal, capability, model) whose effect the proposed policy changes. */
export const ReplayFlip = Schema.Struct({
  direction: Schema.Literal("tightened", "loosened"),
  principal: PrincipalClass,
  capability: Schema.String,
  model: Schema.String,
  before: ReplayVerdict,
  after: ReplayVerdict,
  /** How many recorded decisions flip. */
  decisions: Schema.Int,
  first_decision_ref: Schema.String,
  last_decision_ref: Schema.String
}).annotations({ identifier: "ReplayFlip" })
export type ReplayFlip = typeof ReplayFlip.Type

/** `pcli policy replay`: recorded evaluations re-evaluated under the current and the proposed policy; read-only. */
export const PolicyReplayOutput = Schema.Struct({
  command: Schema.Literal("policy_replay"),
  proposed_config: Schema.String,
  since: Schema.NullOr(Schema.String),
  /** Recorded evaluation rows replayed. */
  evaluations: Schema.Int,
  unchanged: Schema.Int,
  tightened: Schema.Int,
  loosened: Schema.Int,
  /** Rows not replayable (no capability, or one this version does not know). */
  skipped: Schema.Int,
  /** Loosened first, then by decisions (most first), principal, capability, model. */
  flips: Schema.Array(ReplayFlip),
  notes: Schema.Array(Schema.String)
}).annotations({ identifier: "PolicyReplayOutput" })
export type PolicyReplayOutput = typeof PolicyReplayOutput.Type
