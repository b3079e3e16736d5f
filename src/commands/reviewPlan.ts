import type { CommandExecutor, FileSystem, Path } from "@effect/platform"
import { Clock, Effect, Option, Schema } from "effect"
import * as os from "node:os"
import { isGatedPlan, type Plan, type ReviewMarker } from "../schemas/plans"
import { type ReviewOutput } from "../schemas/reviewOutput"
import { Environment } from "../services/Environment/Environment"
import { Ledger, type LedgerUnavailable } from "../services/Ledger/Ledger"
import { breakingFindings, diffRevisions } from "../services/Plans/diff"
import { withImpact } from "./breakingImpact"
import { GcPayload } from "../schemas/reclaim"
import {
  ApprovalNeedsHuman,
  type ApprovalTaken,
  type BaseRefNotFound,
  type GitFailed,
  type InvalidMarker,
  type MarkerUnrecorded,
  type PlanIntegrity,
  type ReviewMarkerWriteFailed
} from "../services/Plans/errors"
import type { StateHashMismatch } from "./environmentErrors"
import { checkCarriedFacts } from "./promoteFacts"
import { gitIdentity, readTreeAt, resolveCommit } from "../services/Plans/git"
import { refusalRow } from "../services/Plans/ledgerRows"
import { principalLabel, recordApproval } from "../services/Plans/approvals"
import { PlanStore, type PlanReadError } from "../services/Plans/PlanStore"
import { readWorkingTree, staleOf } from "../services/Plans/revisions"
import { Principal } from "../services/Principal/Principal"
import { type CompileError, PipelineCompiler } from "../services/Project/compile"
import type { ModelFileMismatch, ModelOutsideProject, ModelsUnreadable } from "../services/Project/errors"
import type { StatementFailed } from "../services/Warehouse/Warehouse"
import { ProjectContext } from "../services/ProjectConfig/ProjectContext"
import { breakingCount } from "./reviewStatus"

export { reviewStatus } from "./reviewStatus"
export { reviewQueue } from "./reviewQueue"

const baseLabel = (plan: Plan): string =>
  isGatedPlan(plan) ? "" : plan.payload.base.kind === "git" ? plan.payload.base.ref : "applied"


export interface ReviewInput {
  readonly planId: string
  /** Recompute the findings of the plan's changed models against this git ref. */
  readonly base?: string | undefined
}

export type ReviewError = PlanReadError | ModelsUnreadable | ModelFileMismatch | ModelOutsideProject | BaseRefNotFound | GitFailed | StatementFailed

/** `pcli review <id> [--base REF]`: a dry run that writes nothing. */
export const reviewPlan = (
  input: ReviewInput
): Effect.Effect<ReviewOutput, ReviewError, PlanStore | PipelineCompiler | Environment | ProjectContext | FileSystem.FileSystem | Path.Path | CommandExecutor.CommandExecutor> =>
  Effect.gen(function* () {
    const store = yield* PlanStore
    const { modelsDir } = yield* ProjectContext
    const plan = yield* store.read(input.planId)
    const stale = yield* staleOf(plan, modelsDir)
    let changes = isGatedPlan(plan) ? [] : plan.payload.changes
    let baseRef = baseLabel(plan)
    if (input.base !== undefined && !isGatedPlan(plan)) {
      const commit = yield* resolveCommit(modelsDir, input.base)
      const revision = yield* readTreeAt(modelsDir, commit)
      const working = yield* readWorkingTree(modelsDir)
      changes = yield* diffRevisions(revision, working, plan.payload.changes.map((c) => c.model), yield* Environment)
      baseRef = input.base
    }
    const breaking = yield* withImpact(breakingFindings(changes))
    const gc = plan.kind === "gc" ? Option.getOrUndefined(Schema.decodeUnknownOption(GcPayload)(plan.payload)) : undefined
    const evictions = gc?.evictions
    const tableDrops = gc?.table_drops
    const message = [
      breaking.length === 0 ? "no breaking changes" : `${breaking.length} BREAKING change finding(s): approving ships them`,
      ...(stale.length === 0 ? [] : [`plan is STALE (${stale.join(", ")} changed since planning): apply will refuse it`]),
      `dry run: nothing written; approve with pcli review ${plan.plan_id} --approve`
    ].join("; ")
    return {
      command: "review" as const,
      plan_id: plan.plan_id,
      kind: plan.kind,
      base_ref: baseRef,
      approved: false,
      marker_written: false,
      stale: stale.length > 0,
      models: [...plan.payload.models],
      changes: [...changes],
      breaking_changes: breaking,
      ...(evictions === undefined ? {} : { evictions: [...evictions] }),
      ...(tableDrops === undefined ? {} : { table_drops: [...tableDrops] }),
      message
    }
  })

export interface ApproveInput {
  readonly planId: string
}

export type ApproveError = PlanReadError | ApprovalNeedsHuman | ApprovalTaken | ModelsUnreadable | ModelFileMismatch | ModelOutsideProject | ReviewMarkerWriteFailed | LedgerUnavailable

/**
 * `pcli review <id> --approve`: writes `<id>.reviewed.json` atomically (a re-approval
 * replaces it) and appends an `approval` row. Only a human approves.
 */
export const approvePlan = (
  input: ApproveInput
): Effect.Effect<
  ReviewOutput,
  ApproveError | StateHashMismatch | PlanIntegrity | CompileError,
  PlanStore | Ledger | Principal | ProjectContext | PipelineCompiler | Environment | FileSystem.FileSystem | Path.Path | CommandExecutor.CommandExecutor
> =>
  Effect.gen(function* () {
    const { modelsDir } = yield* ProjectContext
    const actor = yield* Principal
    const ledger = yield* Ledger
    const store = yield* PlanStore
    const plan = yield* Effect.gen(function* () {
      const read = yield* store.read(input.planId)
      if (actor.class !== "human") return yield* new ApprovalNeedsHuman({ planId: input.planId })
      // A promote's carried policy facts are what its apply's gate reads: approved only when a compile agrees.
      if (isGatedPlan(read)) yield* checkCarriedFacts(read, store.planPath(read.plan_id))
      return read
    }).pipe(
      Effect.tapError((error) =>
        ledger.append(refusalRow({ actor, principal: actor.class, capability: null, planId: input.planId, error }))
      )
    )
    const stale = yield* staleOf(plan, modelsDir)
    const identity = yield* gitIdentity(modelsDir)
    // What this approver saw: in a shared store the approval is a compare-and-swap against it (decision 36).
    const before = yield* store.marker(plan.plan_id)
    const seen = before._tag === "Approved" ? (before.marker.approval_row?.seq ?? null) : null
    const [path, { marker, sealed, reviewedAt }] = yield* store.approve(
      plan.plan_id,
      seen,
      Effect.gen(function* () {
        const reviewedAt = new Date(yield* Clock.currentTimeMillis).toISOString()
        // The row first: the marker names it (seq and hash), and a marker without its row approves nothing.
        const sealed = yield* recordApproval({ actor, planId: plan.plan_id, approver: identity.email, reviewedAt })
        const marker: ReviewMarker = {
          plan_id: plan.plan_id,
          reviewed_at: reviewedAt,
          base_ref: baseLabel(plan),
          breaking_change_count: breakingCount(plan),
          approver: {
            principal: principalLabel(actor.class, actor.id),
            email: identity.email,
            ...(identity.name === undefined ? {} : { name: identity.name }),
            host: os.hostname(),
            source: "local"
          },
          approval_row: { seq: sealed.seq, hash: sealed.row_hash }
        }
        return [marker, { marker, sealed, reviewedAt }] as const
      })
    )
    const row = sealed.row
    const changes = isGatedPlan(plan) ? [] : plan.payload.changes
    const breaking = breakingFindings(changes)
    return {
      command: "review" as const,
      plan_id: plan.plan_id,
      kind: plan.kind,
      base_ref: marker.base_ref,
      approved: true,
      marker_written: true,
      marker_path: path,
      reviewed_at: reviewedAt,
      approver: marker.approver,
      decision_ref: row.decision_ref,
      stale: stale.length > 0,
      models: [...plan.payload.models],
      changes: [...changes],
      breaking_changes: breaking,
      message: [
        `approved by ${marker.approver.principal} (${identity.email}), ledger row ${sealed.seq}`,
        ...(breaking.length === 0 ? [] : [`WARNING: ${breaking.length} BREAKING change finding(s) approved`]),
        ...(stale.length === 0 ? [] : [`plan is STALE (${stale.join(", ")} changed since planning): apply will refuse it`]),
        `next: pcli apply ${plan.plan_id}`
      ].join("; ")
    }
  })

