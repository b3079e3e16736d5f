import type { SqlClient } from "@effect/sql"
import { Clock, Effect, Schema } from "effect"
import type { Environment } from "../services/Environment/Environment"
import type { GatedPlan } from "../schemas/plans"
import { GcApplyOutput, GcPayload, type GcTableDrop } from "../schemas/reclaim"
import { deriveChecks } from "../services/Reclamation/checks"
import type { ProjectContext } from "../services/ProjectConfig/ProjectContext"
import type { PhysicalDeleteUnsupported } from "../services/Reclamation/errors"
import { evict, keyOf, readCheckedSnapshot, readSnapshot } from "../services/Reclamation/ledger"
import { RunStoreFailed } from "../services/Runner/RunStore"
import { dropTable } from "../services/Reclamation/dropTable"
import { scanDeterminism } from "../services/Reclamation/determinism"
import { readersFirst, readStoreFacts, recipeSqls } from "../services/Reclamation/tables"
import type { StatementFailed, Warehouse } from "../services/Warehouse/Warehouse"
import { refusePhysicalDelete } from "./gcDerivable"
import { keepPromotionsOf } from "./gcTables"

export const isGcApply = (out: { readonly command: string }): out is GcApplyOutput => Schema.is(GcApplyOutput)(out)

/** Each planned table, re-checked against the live store and catalog and dropped, or refused and reported. */
const applyTableDrops = (plan: GatedPlan, drops: ReadonlyArray<GcTableDrop>, minAgeDays: number) =>
  Effect.gen(function* () {
    const dropped: Array<NonNullable<GcApplyOutput["tables_dropped"]>[number]> = []
    const refused: Array<NonNullable<GcApplyOutput["tables_refused"]>[number]> = []
    if (drops.length === 0) return { dropped, refused }
    const keep = yield* keepPromotionsOf
    // Recorded recipes are immutable per build: their SQL is scanned once; a table rebuilt since is refused anyway.
    const facts = yield* readStoreFacts(keep)
    const determinism = yield* scanDeterminism(recipeSqls(facts))
    for (const entry of readersFirst(drops, facts)) {
      const outcome = yield* dropTable(entry, plan.plan_id, minAgeDays, keep, determinism)
      if (outcome._tag === "dropped") dropped.push({ physical: entry.physical, model_name: entry.model_name, tombstone_recorded: true, physical_reclaimed: true })
      else if (outcome._tag === "refused") refused.push({ physical: entry.physical, model_name: entry.model_name, reason: outcome.reason, failed_checks: [...outcome.failed] })
      else refused.push({ physical: entry.physical, model_name: entry.model_name, reason: "the table is no longer in the warehouse's catalog", failed_checks: [] })
    }
    return { dropped, refused }
  })

/**
 * Executes an admitted gc plan: per entry, the six checks are re-derived now against the live
 * row; a derivable row is evicted (tombstone + ledger retirement in one transaction). Bytes stay.
 * A planned physical table is re-checked against the live store and the warehouse's catalog, then dropped.
 */
export const applyGc = (
  plan: GatedPlan
): Effect.Effect<GcApplyOutput, PhysicalDeleteUnsupported | RunStoreFailed | StatementFailed, SqlClient.SqlClient | ProjectContext | Environment | Warehouse> =>
  Effect.gen(function* () {
    yield* refusePhysicalDelete
    const payload = yield* Schema.decodeUnknown(GcPayload)(plan.payload).pipe(
      Effect.mapError((e) => new RunStoreFailed({ detail: `gc plan ${plan.plan_id} payload: ${e.message}` }))
    )
    const out = { evicted: [] as Array<GcApplyOutput["evicted"][number]>, refused: [] as Array<GcApplyOutput["refused"][number]>, already: [] as Array<string> }
    // The recorded SQL is immutable, so it is parsed once; the ledger is re-read per entry.
    const { determinism } = yield* readCheckedSnapshot
    for (const entry of payload.evictions) {
      const snapshot = { ...(yield* readSnapshot), determinism }
      const now = yield* Clock.currentTimeMillis
      const live = snapshot.artifacts.find((a) => a.run_id === entry.run_id && a.model_name === entry.model_name && a.file_path === entry.file_path)
      const base = { model_name: entry.model_name, run_id: entry.run_id, blake3_hash: entry.blake3_hash, size_bytes: entry.size_bytes }
      if (live === undefined) {
        out.already.push(entry.blake3_hash)
        continue
      }
      if (live.blake3_hash !== entry.blake3_hash) {
        out.refused.push({ ...base, reason: "the live row carries another hash: the plan is stale or hand-authored", failed_checks: [] })
        continue
      }
      const failing = deriveChecks(live, snapshot, payload.min_age_days, now).filter((c) => !c.passed)
      if (failing.length > 0) {
        out.refused.push({ ...base, reason: `no longer derivable at apply time — failing checks: ${failing.map((c) => c.check).join(", ")}`, failed_checks: failing })
        continue
      }
      const outcome = yield* evict(live, snapshot.provenance.get(keyOf(live.run_id, live.model_name)), plan.plan_id, new Date(now).toISOString())
      if (outcome === "evicted") out.evicted.push({ ...base, tombstone_recorded: true, physical_reclaimed: false })
      else if (outcome === "already_absent") out.already.push(entry.blake3_hash)
      else out.refused.push({ ...base, reason: "the live row changed hash during eviction; nothing was retired", failed_checks: [] })
    }
    const tables = yield* applyTableDrops(plan, payload.table_drops ?? [], payload.min_age_days)
    const sum = (xs: ReadonlyArray<{ readonly size_bytes: number }>) => xs.reduce((n, x) => n + x.size_bytes, 0)
    return {
      command: "apply" as const,
      kind: "gc" as const,
      plan_id: plan.plan_id,
      evicted: out.evicted,
      refused: out.refused,
      already_evicted: out.already,
      bytes_evicted: sum(out.evicted),
      bytes_refused: sum(out.refused),
      evicted_count: out.evicted.length,
      refused_count: out.refused.length,
      ...(payload.table_drops === undefined ? {} : { tables_dropped: tables.dropped, tables_refused: tables.refused })
    }
  })
