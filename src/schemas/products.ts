import { Schema } from "effect"
import { PolicyEffect } from "./policy"

/** Fulfillment states (wire tags). Only `product approve` writes one (`spec_approved`) in this release. */
export const FULFILL_STATES = [
  "init",
  "elicited",
  "spec_approved",
  "lowered_contract",
  "drafting",
  "merged",
  "verifying",
  "proposed",
  "plan_approved",
  "applying",
  "applying_unknown",
  "applied",
  "observing",
  "needs_input",
  "blocked",
  "superseded"
] as const
export const FulfillState = Schema.Literal(...FULFILL_STATES)
export type FulfillState = typeof FulfillState.Type

export const VerifyStatus = Schema.Literal("pass", "needs_input", "fail")
export type VerifyStatus = typeof VerifyStatus.Type

/** `product verify`: the first failing check decides; exit 0 pass, 1 needs_input, 2 fail. */
export const ProductVerifyOutput = Schema.Struct({
  command: Schema.Literal("product_verify"),
  product_id: Schema.String,
  spec_digest: Schema.String,
  /** Omitted when the spec does not parse. */
  output_model: Schema.optional(Schema.String),
  status: VerifyStatus,
  reason: Schema.String,
  paste_block: Schema.optional(Schema.String),
  propose_effect: Schema.optional(PolicyEffect),
  apply_effect: Schema.optional(PolicyEffect)
})
export type ProductVerifyOutput = typeof ProductVerifyOutput.Type

export const ProductApproval = Schema.Struct({
  spec_digest: Schema.String,
  /** The git identity (an attribution, not an authentication). */
  approver: Schema.String,
  /** The acting principal that approved, as `class(id)`; absent for approvals recorded before it was kept. */
  approved_by: Schema.optional(Schema.String),
  approved_at: Schema.String,
  snapshot_path: Schema.String
})
export type ProductApproval = typeof ProductApproval.Type

export const CompiledArtifact = Schema.Struct({ path: Schema.String, sha256: Schema.String })

export const RecoveryOutcome = Schema.Literal("none", "rolled_forward", "rolled_back")
export type RecoveryOutcome = typeof RecoveryOutcome.Type

/** `product compile`: the generation now committed. */
export const ProductCompileOutput = Schema.Struct({
  command: Schema.Literal("product_compile"),
  product_id: Schema.String,
  spec_digest: Schema.String,
  spec_path: Schema.String,
  output_model: Schema.String,
  phase: Schema.Literal("lowered_contract", "merged"),
  /** Every artifact of the generation (the manifest excluded), with its sha256. */
  artifacts: Schema.Array(CompiledArtifact),
  manifest_path: Schema.String,
  /** What recovery of an earlier crashed commit did before this one. */
  recovery: RecoveryOutcome,
  approval: Schema.optional(ProductApproval),
  spec_matches_approval: Schema.optional(Schema.Boolean)
})
export type ProductCompileOutput = typeof ProductCompileOutput.Type

/** `product approve`. */
export const ProductApproveOutput = Schema.Struct({
  command: Schema.Literal("product_approve"),
  product_id: Schema.String,
  spec_digest: Schema.String,
  output_model: Schema.String,
  approver: Schema.String,
  approved_by: Schema.optional(Schema.String),
  approved_at: Schema.String,
  snapshot_path: Schema.String,
  /** Omitted when the product had no fulfillment record. */
  previous_state: Schema.optional(FulfillState),
  state: FulfillState,
  already_approved: Schema.Boolean
})
export type ProductApproveOutput = typeof ProductApproveOutput.Type

const statusFields = {
  spec_present: Schema.Boolean,
  product_id: Schema.optional(Schema.String),
  spec_digest: Schema.optional(Schema.String),
  output_model: Schema.optional(Schema.String),
  /** `[code] message` when the spec is missing or does not parse. */
  spec_error: Schema.optional(Schema.String),
  committed_phase: Schema.optional(Schema.Literal("lowered_contract", "merged")),
  committed_spec_digest: Schema.optional(Schema.String),
  /** Byte-verification of the committed artifacts; `[]` when clean. */
  artifact_problems: Schema.Array(Schema.String),
  staging_journal_present: Schema.Boolean,
  approval: Schema.optional(ProductApproval),
  snapshot_intact: Schema.optional(Schema.Boolean),
  spec_matches_approval: Schema.optional(Schema.Boolean),
  /** The recorded state, or `snapshot_tampered` when the approval's snapshot no longer matches it (then `recorded_state` holds the record's). */
  fulfill_state: Schema.optional(Schema.Union(FulfillState, Schema.Literal("snapshot_tampered"))),
  recorded_state: Schema.optional(FulfillState),
  journal_rows: Schema.Int
}

/** `product status <name>`: read-only; writes and recovers nothing. */
export const ProductStatusOutput = Schema.Struct({
  command: Schema.Literal("product_status"),
  product: Schema.String,
  ...statusFields
})
export type ProductStatusOutput = typeof ProductStatusOutput.Type

export const ProductListEntry = Schema.Struct({ product: Schema.String, ...statusFields })
export type ProductListEntry = typeof ProductListEntry.Type

/** `product list`: every known product, sorted by name. */
export const ProductListOutput = Schema.Struct({
  command: Schema.Literal("product_list"),
  products: Schema.Array(ProductListEntry),
  count: Schema.Int
})
export type ProductListOutput = typeof ProductListOutput.Type

/** One fulfillment journal row; absent values are `null`, never omitted. */
export const ProductJournalEntry = Schema.Struct({
  seq: Schema.Int,
  at: Schema.String,
  event: Schema.String,
  from_state: Schema.NullOr(FulfillState),
  to_state: FulfillState,
  spec_digest: Schema.NullOr(Schema.String),
  plan_id: Schema.NullOr(Schema.String),
  idempotency_key: Schema.NullOr(Schema.String)
})
export type ProductJournalEntry = typeof ProductJournalEntry.Type

/** `product journal <name>`: rows in append order. */
export const ProductJournalOutput = Schema.Struct({
  command: Schema.Literal("product_journal"),
  product: Schema.String,
  product_id: Schema.String,
  rows: Schema.Array(ProductJournalEntry),
  count: Schema.Int
})
export type ProductJournalOutput = typeof ProductJournalOutput.Type
