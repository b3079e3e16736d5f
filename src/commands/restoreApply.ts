import type { FileSystem, Path } from "@effect/platform"
import type { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import type { Environment } from "../services/Environment/Environment"
import type { GatedPlan } from "../schemas/plans"
import { RestoreApplyOutput, Restoration } from "../schemas/reclaim"
import { restoreOne } from "../services/Reclamation/restore"
import { RunStoreFailed } from "../services/Runner/RunStore"
import type { Warehouse } from "../services/Warehouse/Warehouse"

const RestorePayload = Schema.Struct({ restorations: Schema.Array(Restoration) })

export const isRestoreApply = (out: { readonly command: string }): out is RestoreApplyOutput => Schema.is(RestoreApplyOutput)(out)

/** Executes an admitted restore plan; each refusal names the condition that failed (exit 0). */
export const applyRestore = (
  plan: GatedPlan,
  projectRoot: string
): Effect.Effect<RestoreApplyOutput, RunStoreFailed, SqlClient.SqlClient | Warehouse | FileSystem.FileSystem | Path.Path | Environment> =>
  Effect.gen(function* () {
    const payload = yield* Schema.decodeUnknown(RestorePayload)(plan.payload).pipe(
      Effect.mapError((e) => new RunStoreFailed({ detail: `restore plan ${plan.plan_id} payload: ${e.message}` }))
    )
    const restored: Array<RestoreApplyOutput["restored"][number]> = []
    const refused: Array<RestoreApplyOutput["refused"][number]> = []
    const already: Array<string> = []
    for (const r of payload.restorations) {
      const outcome = yield* restoreOne(r, plan.plan_id, projectRoot).pipe(
        Effect.catchAll((e) => Effect.succeed({ _tag: "Refused" as const, condition: "io", reason: e.message }))
      )
      const base = { model_name: r.model_name, run_id: r.run_id, blake3_hash: r.blake3_hash, size_bytes: r.size_bytes }
      if (outcome._tag === "Restored") restored.push({ ...base, file_path: r.file_path, hash_verified: true, bytes_written: outcome.bytesWritten })
      else if (outcome._tag === "AlreadyRestored") already.push(r.blake3_hash)
      else refused.push({ ...base, condition: outcome.condition, reason: outcome.reason })
    }
    return {
      command: "apply" as const,
      kind: "restore" as const,
      plan_id: plan.plan_id,
      restored,
      refused,
      already_restored: already,
      restored_count: restored.length,
      refused_count: refused.length
    }
  })
