import { Schema } from "effect"
import { RunOutput } from "./pipeline"
import { Capability, PolicyEffect, Principal } from "./policy"

/** What a plan does; `escalation` is a run plan whose planning evaluation resolved `require_review`. */
export const PLAN_KINDS = ["run", "ai_authored", "escalation", "gc", "restore", "backfill", "promote", "rollback"] as const
export const PlanKind = Schema.Literal(...PLAN_KINDS)
export type PlanKind = typeof PlanKind.Type

/** What policy evaluates a directly changed model at. */
export const ChangeClass = Schema.Literal("schema_change.additive", "value_change", "schema_change.breaking")
export type ChangeClass = typeof ChangeClass.Type

export const FINDING_KINDS = [
  "model_added",
  "model_removed",
  "column_added",
  "column_removed",
  "column_type_changed",
  "column_nullability_loosened",
  "target_changed",
  "contract_removed",
  "scope_attribute_changed",
  "sql_body_changed",
  "strategy_changed",
  "metadata_changed",
  "text_changed"
] as const
export const FindingKind = Schema.Literal(...FINDING_KINDS)
export type FindingKind = typeof FindingKind.Type

/** One difference between a model's base revision and its working-tree revision. */
export const ChangeFinding = Schema.Struct({
  kind: FindingKind,
  column: Schema.optional(Schema.String),
  from: Schema.optional(Schema.String),
  to: Schema.optional(Schema.String),
  detail: Schema.optional(Schema.String)
})
export type ChangeFinding = typeof ChangeFinding.Type

/** What policy scopes read about a model the working tree no longer has (from its base revision). */
export const RecordedAttributes = Schema.Struct({
  tags: Schema.Record({ key: Schema.String, value: Schema.String }),
  classifications: Schema.Array(Schema.String),
  contracted: Schema.Boolean
})

/** A directly changed model: its class, findings, and the fingerprints either side (null = absent). */
export const ModelChange = Schema.Struct({
  model: Schema.String,
  change_class: ChangeClass,
  findings: Schema.Array(ChangeFinding),
  before: Schema.NullOr(Schema.String),
  after: Schema.NullOr(Schema.String),
  /** Only for a removed model: its attributes at the base, so policy can still scope it. */
  base_attributes: Schema.optional(RecordedAttributes)
})
export type ModelChange = typeof ModelChange.Type

/** What a run plan was diffed against: the last applied state, or a git commit. */
export const PlanBase = Schema.Union(
  Schema.Struct({ kind: Schema.Literal("applied") }),
  Schema.Struct({ kind: Schema.Literal("git"), ref: Schema.String, commit: Schema.String })
)
export type PlanBase = typeof PlanBase.Type

/** Payload of run, escalation and ai_authored plans. */
export const RunPayload = Schema.Struct({
  base: PlanBase,
  /** Directly changed models (removed ones included), by name. */
  changes: Schema.Array(ModelChange),
  /** What apply runs: changed models and their downstream closure, in project order. */
  models: Schema.Array(Schema.String),
  /** Content fingerprint of every model the plan touches (null: the model must not exist). */
  fingerprints: Schema.Record({ key: Schema.String, value: Schema.NullOr(Schema.String) }),
  /** The applied plan with this content, when this one is issued after it (a plan applies once). */
  reissue_of: Schema.optional(Schema.String)
})
export type RunPayload = typeof RunPayload.Type

/** Payload of gc, restore and backfill plans: the models they act on; the rest belongs to their commands. */
export const GatedPayload = Schema.Struct(
  {
    models: Schema.Array(Schema.String),
    fingerprints: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.NullOr(Schema.String) }))
  },
  Schema.Record({ key: Schema.String, value: Schema.Unknown })
)
export type GatedPayload = typeof GatedPayload.Type

export const PrincipalIdSource = Schema.Literal("flag", "env", "mcp_profile", "default", "role")

/** Who wrote a plan: display only, outside the plan id. */
export const PlanAuthor = Schema.Struct({ class: Principal, id: Schema.String, source: PrincipalIdSource })
export type PlanAuthor = typeof PlanAuthor.Type

/** `.pcli/plans/<plan_id>.json`; `plan_id` = hex BLAKE3 of the canonical JSON of `{kind, payload}`. */
export const PlanFile = Schema.Struct({
  plan_id: Schema.String,
  format_version: Schema.Literal(1),
  kind: PlanKind,
  created_at: Schema.String,
  principal: PlanAuthor,
  payload: Schema.Unknown
})
export type PlanFile = typeof PlanFile.Type

interface PlanHeader {
  readonly plan_id: string
  readonly format_version: 1
  readonly created_at: string
  readonly principal: PlanAuthor
}
export interface RunLikePlan extends PlanHeader {
  readonly kind: "run" | "escalation" | "ai_authored"
  readonly payload: RunPayload
}
export interface GatedPlan extends PlanHeader {
  readonly kind: "gc" | "restore" | "backfill" | "promote" | "rollback"
  readonly payload: GatedPayload
}
/** A plan as read back: integrity checked, payload decoded for its kind. */
export type Plan = RunLikePlan | GatedPlan

/** What a plan is about, without its header (what the id hashes). */
export type PlanBody = Pick<RunLikePlan, "kind" | "payload"> | Pick<GatedPlan, "kind" | "payload">

export const isGatedPlan = <P extends PlanBody>(plan: P): plan is Extract<P, { readonly kind: GatedPlan["kind"] }> =>
  plan.kind === "gc" || plan.kind === "restore" || plan.kind === "backfill" || plan.kind === "promote" || plan.kind === "rollback"

/** Who approved: the acting principal as `class(id)`, with the git identity (`email`, `name`) as attributes beside it. */
export const Approver = Schema.Struct({
  /** `human(<id>)`, from the approval's ledger row; absent only in markers written before approvals were rows. */
  principal: Schema.optional(Schema.String),
  email: Schema.String,
  name: Schema.optional(Schema.String),
  host: Schema.String,
  source: Schema.Literal("local")
})
export type Approver = typeof Approver.Type

/** `.pcli/plans/<plan_id>.reviewed.json`: names exactly one plan. */
export const ReviewMarker = Schema.Struct({
  plan_id: Schema.String,
  reviewed_at: Schema.String,
  base_ref: Schema.String,
  breaking_change_count: Schema.Int,
  approver: Approver,
  /** The approval's ledger row (decisions.md 34): apply needs that row, with this hash, in a verified chain. */
  approval_row: Schema.optional(Schema.Struct({ seq: Schema.Int, hash: Schema.String }))
})
export type ReviewMarker = typeof ReviewMarker.Type

/** One policy evaluation as a use case reports it (the ledger row carries the same). */
export const Evaluation = Schema.Struct({
  model: Schema.String,
  capability: Capability,
  effect: PolicyEffect,
  rule_id: Schema.NullOr(Schema.Int),
  reason: Schema.String,
  decision_ref: Schema.String
})
export type Evaluation = typeof Evaluation.Type

/** `not_configured`: no `[policy]` block, nothing evaluated or recorded (decisions.md item 32). */
export const PolicyState = Schema.Literal("evaluated", "not_configured")

/** `pcli plan`. */
export const PlanOutput = Schema.Struct({
  command: Schema.Literal("plan"),
  plan_id: Schema.String,
  kind: PlanKind,
  path: Schema.String,
  /** False when an identical plan (same id) was already on disk and was kept. */
  written: Schema.Boolean,
  base: PlanBase,
  changes: Schema.Array(ModelChange),
  models: Schema.Array(Schema.String),
  policy: PolicyState,
  evaluations: Schema.Array(Evaluation),
  /** What to run next: `pcli apply <id>` or `pcli review <id> --approve`. */
  next: Schema.String
})
export type PlanOutput = typeof PlanOutput.Type

export const CheckResult = Schema.Struct({
  check: Schema.String,
  model: Schema.String,
  status: Schema.Literal("passed", "failed", "absent"),
  detail: Schema.String
})
export type CheckResult = typeof CheckResult.Type

/** Post-apply `verify_after` of one allow rule (one `verification` ledger row). */
export const VerificationOutput = Schema.Struct({
  rule_id: Schema.Int,
  passed: Schema.Boolean,
  checks: Schema.Array(CheckResult),
  decision_ref: Schema.String
})
export type VerificationOutput = typeof VerificationOutput.Type

/** `pcli apply <id>`: the gate's decisions, then the standard run output. */
export const ApplyOutput = Schema.Struct({
  command: Schema.Literal("apply"),
  plan_id: Schema.String,
  kind: PlanKind,
  /** The principal policy enforced: the stricter of the invoker and the kind's default. */
  principal: Principal,
  invoker: Principal,
  policy: PolicyState,
  evaluations: Schema.Array(Evaluation),
  /** Set when a review marker satisfied the gate. */
  reviewed_by: Schema.optional(Approver),
  run: RunOutput,
  verifications: Schema.Array(VerificationOutput)
})
export type ApplyOutput = typeof ApplyOutput.Type

/** A model's three files as one revision (`contract` null when it has none). */
export const ModelFiles = Schema.Struct({ sql: Schema.String, sidecar: Schema.String, contract: Schema.NullOr(Schema.String) })
export type ModelFiles = typeof ModelFiles.Type

/** What the last successful apply built of one model: the base of the next `pcli plan`. */
export const AppliedModel = Schema.Struct({
  model: Schema.String,
  fingerprint: Schema.String,
  plan_id: Schema.String,
  applied_at: Schema.String,
  files: ModelFiles
})
export type AppliedModel = typeof AppliedModel.Type

/** `.pcli/applied/<millis>-<pid>-<rand>.json`: what one apply built and removed (later files win). */
export const AppliedBatch = Schema.Struct({
  format_version: Schema.Literal(1),
  plan_id: Schema.String,
  applied_at: Schema.String,
  models: Schema.Array(Schema.Struct({ model: Schema.String, fingerprint: Schema.String, files: ModelFiles })),
  removed: Schema.Array(Schema.String)
})
export type AppliedBatch = typeof AppliedBatch.Type

