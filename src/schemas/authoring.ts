import { Schema } from "effect"
import { PolicyEffect } from "./ledger"

/** MCP `draft_model`: the files written and what compiling the project said about them. */
export const DraftModelOutput = Schema.Struct({
  command: Schema.Literal("draft_model"),
  model: Schema.String,
  files: Schema.Array(Schema.String),
  /** `not_configured` when pcli.toml has no `[policy]` block (nothing evaluated, nothing recorded). */
  policy: Schema.Literal("evaluated", "not_configured"),
  effect: Schema.NullOr(PolicyEffect),
  decision_ref: Schema.NullOr(Schema.String),
  model_count: Schema.Number,
  downstream_closure: Schema.Array(Schema.String)
})
export type DraftModelOutput = typeof DraftModelOutput.Type

/** MCP `propose` when policy allows: the recorded `ai_authored` plan (a human still approves it). */
export const ProposeOutput = Schema.Struct({
  command: Schema.Literal("propose"),
  plan_id: Schema.String,
  models: Schema.Array(Schema.String),
  next: Schema.String
})
export type ProposeOutput = typeof ProposeOutput.Type
