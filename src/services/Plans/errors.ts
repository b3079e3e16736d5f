import { Data } from "effect"

/** No plan file under this id (or the id is not a 64-hex plan id). */
export class PlanNotFound extends Data.TaggedError("PlanNotFound")<{ readonly planId: string; readonly path: string }> {
  readonly code = "plan-not-found"
  override get message() {
    return /^[0-9a-f]{64}$/.test(this.planId)
      ? `plan ${this.planId} not found (no ${this.path})`
      : `plan '${this.planId}' not found: a plan id is 64 lowercase hex characters (see .pcli/plans/)`
  }
}

/** The plan file does not re-hash to its id: edited by hand, truncated, or not a plan. */
export class PlanIntegrity extends Data.TaggedError("PlanIntegrity")<{
  readonly planId: string
  readonly path: string
  readonly detail: string
}> {
  readonly code = "plan-integrity"
  override get message() {
    return `plan ${this.planId} failed its integrity check (${this.path}): ${this.detail}; re-create it with pcli plan`
  }
}

/** Model files the plan fingerprinted changed after it was written. */
export class PlanStale extends Data.TaggedError("PlanStale")<{
  readonly planId: string
  readonly models: ReadonlyArray<string>
  /** What is wrong, when it is not that their files changed; the model list follows it. */
  readonly detail?: string
}> {
  readonly code = "plan-stale"
  override get message() {
    const list = this.models.join(", ")
    return `plan ${this.planId} is stale: ${this.detail === undefined ? `${list} changed since it was planned` : `${this.detail} ${list}`}; run pcli plan again`
  }
}

/** The plans directory or a plan file could not be read or written. */
export class PlanStoreIo extends Data.TaggedError("PlanStoreIo")<{ readonly path: string; readonly detail: string }> {
  readonly code = "plan-store-io"
  override get message() {
    return `cannot access ${this.path}: ${this.detail}`
  }
}

/** `--base` names nothing git can resolve to a commit. */
export class BaseRefNotFound extends Data.TaggedError("BaseRefNotFound")<{ readonly ref: string; readonly detail: string }> {
  readonly code = "base-ref-not-found"
  override get message() {
    return `--base ${this.ref}: not a commit in this repository (${this.detail})`
  }
}

/** git could not be run, or the models directory is not in a git work tree. */
export class GitFailed extends Data.TaggedError("GitFailed")<{ readonly command: string; readonly detail: string }> {
  readonly code = "git-failed"
  override get message() {
    return `${this.command} failed: ${this.detail}`
  }
}

/** Reading or recording the last applied state (`.pcli/applied/`) failed. */
export class AppliedStateIo extends Data.TaggedError("AppliedStateIo")<{ readonly path: string; readonly detail: string }> {
  readonly code = "applied-state-io"
  override get message() {
    return `applied state ${this.path}: ${this.detail}`
  }
}

/** The gate needs a review marker and there is none. `why` says which rule of the gate needs it. */
export class MarkerMissing extends Data.TaggedError("MarkerMissing")<{
  readonly planId: string
  readonly path: string
  readonly why: string
}> {
  readonly code = "marker-missing"
  override get message() {
    return `plan ${this.planId} has not been reviewed and approved (${this.why}); a human approves it with: pcli review ${this.planId} --approve`
  }
}

/** The marker is truncated or garbled: it never approves anything. */
export class MarkerUnparseable extends Data.TaggedError("MarkerUnparseable")<{
  readonly planId: string
  readonly path: string
  readonly detail: string
}> {
  readonly code = "marker-unparseable"
  override get message() {
    return `refusing plan ${this.planId}: its review marker is INVALID — the marker at ${this.path} does not parse as a review marker: ${this.detail}. Re-approve with pcli review ${this.planId} --approve`
  }
}

/** The marker names another plan (copied or mispasted). */
export class MarkerPlanMismatch extends Data.TaggedError("MarkerPlanMismatch")<{
  readonly planId: string
  readonly path: string
  readonly otherPlanId: string
}> {
  readonly code = "marker-plan-mismatch"
  override get message() {
    return `refusing plan ${this.planId}: its review marker is INVALID — the marker at ${this.path} approves plan '${this.otherPlanId}', not '${this.planId}'. Re-approve with pcli review ${this.planId} --approve`
  }
}

/** The marker path is a symlink, a directory or another non-regular file: never followed, never trusted. */
export class MarkerNotAFile extends Data.TaggedError("MarkerNotAFile")<{
  readonly planId: string
  readonly path: string
  readonly found: string
}> {
  readonly code = "marker-not-a-file"
  override get message() {
    return `refusing plan ${this.planId}: its review marker is INVALID — ${this.path} is a ${this.found}, not a regular file. Remove it and re-approve with pcli review ${this.planId} --approve`
  }
}

/** The marker exists but cannot be read (permissions, I/O). */
export class MarkerUnreadable extends Data.TaggedError("MarkerUnreadable")<{
  readonly planId: string
  readonly path: string
  readonly detail: string
}> {
  readonly code = "marker-unreadable"
  override get message() {
    return `refusing plan ${this.planId}: its review marker is INVALID — the marker at ${this.path} is unreadable: ${this.detail}`
  }
}

/** The marker names no approval row, or one the ledger does not hold as this plan's human approval in a verified chain. */
export class MarkerUnrecorded extends Data.TaggedError("MarkerUnrecorded")<{
  readonly planId: string
  readonly path: string
  readonly detail: string
}> {
  readonly code = "marker-unrecorded"
  override get message() {
    return `refusing plan ${this.planId}: its review marker is UNRECORDED — ${this.detail}; a marker approves only with its approval row in the ledger. A human approves with pcli review ${this.planId} --approve`
  }
}

/** A plan applies at most once (decisions.md 34): an earlier apply claimed it. */
export class PlanAlreadyApplied extends Data.TaggedError("PlanAlreadyApplied")<{
  readonly planId: string
  readonly status: "applying" | "applied" | "failed"
  readonly claimedAt: string
  readonly approvalSeq: number | null
}> {
  readonly code = "plan-already-applied"
  override get message() {
    const since = `its apply of ${this.claimedAt}`
    const state =
      this.status === "applied"
        ? `was applied (${since}); a plan applies once: write a new plan for another change`
        : this.status === "applying"
          ? `is being applied (${since} has not finished; if it was killed, a human approves the plan again to retry); nothing was run`
          : `failed (${since})${this.approvalSeq === null ? "" : `, which used up approval row ${this.approvalSeq}`}; to retry, plan again and have a human approve it again`
    return `plan ${this.planId} ${state}`
  }
}

export type InvalidMarker = MarkerUnparseable | MarkerPlanMismatch | MarkerNotAFile | MarkerUnreadable

/** Writing the review marker failed; no marker was left behind. */
/** A freeze or unfreeze landed between the apply's policy gate and its claim (decision 36): the apply is refused, never half-ordered. */
export class FreezeChangedDuringApply extends Data.TaggedError("FreezeChangedDuringApply")<{
  readonly planId: string
  readonly seq: number
}> {
  readonly code = "freeze-changed"
  override get message() {
    return `a freeze or unfreeze (ledger row ${this.seq}) was recorded while plan ${this.planId} passed its gates; nothing was applied: run pcli apply ${this.planId} again`
  }
}

/** Compare-and-swap lost (decision 36): another approver's marker landed first; this approval wrote nothing. */
export class ApprovalTaken extends Data.TaggedError("ApprovalTaken")<{
  readonly planId: string
  readonly winner: string
  readonly seq: number | null
}> {
  readonly code = "approval-taken"
  override get message() {
    const row = this.seq === null ? "" : ` (ledger row ${this.seq})`
    return `plan ${this.planId} was approved by ${this.winner}${row} while this approval was made; nothing was written (pcli review ${this.planId} --status)`
  }
}

export class ReviewMarkerWriteFailed extends Data.TaggedError("ReviewMarkerWriteFailed")<{
  readonly path: string
  readonly detail: string
}> {
  readonly code = "review-marker-write-failed"
  override get message() {
    return `cannot write review marker ${this.path}: ${this.detail}`
  }
}

/** Only a human signs off a plan: an agent approving would defeat the marker gate. */
export class ApprovalNeedsHuman extends Data.TaggedError("ApprovalNeedsHuman")<{ readonly planId: string }> {
  readonly code = "approval-needs-human"
  override get message() {
    return `an agent cannot approve plan ${this.planId}: review markers are a human sign-off (run pcli review ${this.planId} --approve without PCLI_PRINCIPAL=agent)`
  }
}

/** Policy resolved `deny` for a model of the plan; no marker satisfies a deny. */
export class PolicyDenied extends Data.TaggedError("PolicyDenied")<{
  readonly planId: string
  readonly model: string
  readonly capability: string
  readonly rule: number | null
  readonly reason: string
  /** Who decided, when a freeze (not the rule) forced the deny. */
  readonly decidedBy?: string
}> {
  readonly code = "policy-denied"
  override get message() {
    const by = this.decidedBy ?? (this.rule === null ? "the default agent effect" : `rule ${this.rule}`)
    return `policy DENIES plan ${this.planId}: model ${this.model} (${this.capability}) denied by ${by} — ${this.reason}. A deny cannot be satisfied by review`
  }
}

/** MCP `propose` (decisions.md 29, 32): policy denies the proposed change, so no plan is recorded. */
export class ProposalDenied extends Data.TaggedError("ProposalDenied")<{
  readonly model: string
  readonly capability: string
  readonly rule: number | null
  readonly reason: string
  readonly decidedBy?: string
}> {
  readonly code = "policy_denied"
  override get message() {
    const by = this.decidedBy ?? (this.rule === null ? "the default agent effect" : `rule ${this.rule}`)
    return `policy denies the proposal: model ${this.model} (${this.capability}) denied by ${by} — ${this.reason}; no plan recorded`
  }
}

/** MCP `propose`: the `ai_authored` plan is recorded and waits for a human's review. */
export class ProposalNeedsReview extends Data.TaggedError("ProposalNeedsReview")<{
  readonly planId: string
  readonly model: string
  readonly rule: number | null
}> {
  readonly code = "policy_review_required"
  override get message() {
    const by = this.rule === null ? "the default agent effect" : `rule ${this.rule}`
    return `policy requires review of plan ${this.planId}: model ${this.model} resolved to require_review by ${by}`
  }
  get commands(): ReadonlyArray<string> {
    return [`pcli review ${this.planId} --approve`, `pcli apply ${this.planId}`]
  }
}

/** MCP `draft_model`: capability `propose` on the model did not resolve `allow`; no file was written. */
export class DraftNotAllowed extends Data.TaggedError("DraftNotAllowed")<{
  readonly model: string
  readonly effect: "deny" | "require_review"
  readonly rule: number | null
  readonly reason: string
  readonly decidedBy?: string
}> {
  get code() {
    return this.effect === "deny" ? "policy_denied" : "draft_review_required"
  }
  override get message() {
    const by = this.decidedBy ?? (this.rule === null ? "the default agent effect" : `rule ${this.rule}`)
    return `policy resolves propose on model ${this.model} to ${this.effect} (${by}) — ${this.reason}; no file written`
  }
}

/** gc, restore and backfill plans pass the gates but have no executor yet. */
export class PlanKindNotExecutable extends Data.TaggedError("PlanKindNotExecutable")<{
  readonly planId: string
  readonly kind: string
}> {
  readonly code = "plan-kind-not-executable"
  override get message() {
    return `plan ${this.planId} is a ${this.kind} plan: applying ${this.kind} plans is not implemented yet; nothing was changed`
  }
}

/** An agent's `pcli run` touched a model policy does not allow it to apply directly (decisions.md item 30). */
export class RunNeedsPlan extends Data.TaggedError("RunNeedsPlan")<{
  readonly blocked: ReadonlyArray<{ readonly model: string; readonly effect: string; readonly rule: number | null; readonly decidedBy?: string }>
}> {
  readonly code = "run-needs-plan"
  override get message() {
    const list = this.blocked.map((b) => `${b.model} (${b.effect}${b.decidedBy !== undefined ? `, by ${b.decidedBy}` : b.rule === null ? "" : `, rule ${b.rule}`})`).join(", ")
    return `an agent may not run ${list} directly; nothing was run. Go through pcli plan → pcli review <id> --approve → pcli apply <id>`
  }
}

/** MCP `draft_model` could not write or restore a model file. */
export class DraftWriteFailed extends Data.TaggedError("DraftWriteFailed")<{ readonly path: string; readonly detail: string }> {
  readonly code = "draft-write-failed"
  override get message() {
    return `cannot write ${this.path}: ${this.detail}`
  }
}

/** `pcli plan` or MCP `propose` found no model that differs from the base: no plan is written (issue 32 item 7). */
export class NothingToPlan extends Data.TaggedError("NothingToPlan")<{ readonly base: string }> {
  readonly code = "nothing-to-plan"
  override get message() {
    return `nothing to plan: no model differs from ${this.base}; no plan written`
  }
}
