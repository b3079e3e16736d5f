import type { FileSystem, Path } from "@effect/platform"
import { workingFingerprints } from "../services/Plans/derive"
import { ProjectContext } from "../services/ProjectConfig/ProjectContext"
import type { ModelFileMismatch, ModelOutsideProject, ModelsUnreadable } from "../services/Project/errors"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { RestorePlanOutput } from "../schemas/reclaim"
import { Ledger, type LedgerUnavailable } from "../services/Ledger/Ledger"
import type { PlanStoreIo } from "../services/Plans/errors"
import { evaluationRow, ISSUED_REASON } from "../services/Plans/ledgerRows"
import { PlanStore } from "../services/Plans/PlanStore"
import { Principal } from "../services/Principal/Principal"
import { RestoreAlreadyRestored, RestoreTableDropped, RestoreTargetAmbiguous, RestoreTargetLive, RestoreTargetUnknown } from "../services/Reclamation/errors"
import { readSnapshot, readTombstones } from "../services/Reclamation/ledger"
import { resolveTarget } from "../services/Reclamation/target"
import { RunStoreFailed } from "../services/Runner/RunStore"

export type RestoreTargetError =
  | RestoreTargetAmbiguous
  | RestoreAlreadyRestored
  | RestoreTargetLive
  | RestoreTargetUnknown
  | RestoreTableDropped
  | RunStoreFailed
  | PlanStoreIo
  | LedgerUnavailable
  | ModelsUnreadable
  | ModelFileMismatch
  | ModelOutsideProject

/** The latest table gc dropped whose model or physical name is the target. */
const droppedTable = (target: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ physical: string; plan_id: string }>`SELECT physical, plan_id FROM table_tombstones WHERE model_name = ${target} OR physical = ${target.toLowerCase()}
      ORDER BY dropped_at DESC LIMIT 1`
  ).pipe(
    Effect.map((rows) => rows[0]),
    Effect.mapError((e) => new RunStoreFailed({ detail: e.message }))
  )

/** `pcli restore <target>`: resolves exactly one evicted artifact and writes a review-gated restore plan. */
export const restoreTarget = (target: string): Effect.Effect<RestorePlanOutput, RestoreTargetError, SqlClient.SqlClient | PlanStore | Ledger | Principal | ProjectContext | FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function* () {
    const tombstones = yield* readTombstones
    const { artifacts } = yield* readSnapshot
    const resolved = resolveTarget(target, tombstones, artifacts)
    switch (resolved._tag) {
      case "Ambiguous":
        return yield* new RestoreTargetAmbiguous({ target, candidates: resolved.candidates })
      case "AlreadyRestored":
        return yield* new RestoreAlreadyRestored({ target, candidates: resolved.candidates })
      case "Live":
        return yield* new RestoreTargetLive({ target, model: resolved.artifact.model_name, hash: resolved.artifact.blake3_hash })
      case "Unknown": {
        const dropped = yield* droppedTable(target)
        return yield* dropped === undefined ? new RestoreTargetUnknown({ target }) : new RestoreTableDropped({ target, physical: dropped.physical, planId: dropped.plan_id })
      }
    }
    const t = resolved.tombstone
    const restoration = {
      model_name: t.model_name,
      run_id: t.run_id,
      blake3_hash: t.blake3_hash,
      file_path: t.file_path,
      size_bytes: t.size_bytes,
      commit_version: t.commit_version,
      evicted_at: t.evicted_at,
      gc_plan_id: t.plan_id,
      ...(t.recipe_hash === null ? {} : { recipe_hash: t.recipe_hash })
    }
    const actor = yield* Principal
    const store = yield* PlanStore
    const written = yield* store.write({
      kind: "restore",
      payload: { models: [t.model_name], target, restorations: [restoration], fingerprints: yield* workingFingerprints((yield* ProjectContext).modelsDir, [t.model_name]) },
      principal: { class: actor.class, id: actor.id, source: actor.source }
    })
    const planId = written.plan.plan_id
    yield* Effect.flatMap(Ledger, (ledger) =>
      ledger.append(
        evaluationRow({
          actor,
          principal: actor.class,
          model: `restore: ${t.model_name} (${t.blake3_hash.slice(0, 12)}…)`,
          capability: "restore",
          effect: "require_review",
          ruleId: null,
          planId,
          reason: ISSUED_REASON.restore
        })
      )
    )
    return {
      command: "restore" as const,
      plan_id: planId,
      path: written.path,
      target,
      restoration_count: 1,
      total_bytes: t.size_bytes,
      review_required: true as const,
      restorations: [restoration],
      message: `restore planned; next: pcli review ${planId} --approve, then pcli apply ${planId}`
    }
  })
