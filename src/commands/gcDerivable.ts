import type { FileSystem, Path } from "@effect/platform"
import { workingFingerprints } from "../services/Plans/derive"
import type { ModelFileMismatch, ModelOutsideProject, ModelsUnreadable } from "../services/Project/errors"
import type { SqlClient } from "@effect/sql"
import { Clock, Effect, Option } from "effect"
import type { GcCandidate, GcEviction, GcInventoryOutput, GcPlanOutput } from "../schemas/reclaim"
import { Ledger, type LedgerUnavailable } from "../services/Ledger/Ledger"
import type { PlanStoreIo } from "../services/Plans/errors"
import { evaluationRow, governedIssuedReason } from "../services/Plans/ledgerRows"
import { PlanStore } from "../services/Plans/PlanStore"
import { Principal } from "../services/Principal/Principal"
import { ProjectContext } from "../services/ProjectConfig/ProjectContext"
import { candidatesOf, deriveChecks } from "../services/Reclamation/checks"
import { PhysicalDeleteUnsupported } from "../services/Reclamation/errors"
import { readInventory } from "../services/Reclamation/inventory"
import { type CheckedSnapshot, keyOf, readCheckedSnapshot } from "../services/Reclamation/ledger"
import type { RunStoreFailed } from "../services/Runner/RunStore"
import type { StatementFailed, Warehouse } from "../services/Warehouse/Warehouse"
import { InvalidFlagValue, UsageError } from "./errors"
import { dropOf, tableCandidates } from "./gcTables"

export interface GcInput {
  readonly derivable: boolean
  readonly dryRun: boolean
  readonly minAgeDays: number
}

export const GC_NOTES = [
  "for artifacts, derivable is not deletable: gc evicts ledger rows behind a restore tombstone and never deletes their bytes",
  "only pcli's own ledger references are counted; readers outside pcli are invisible",
  "age is written-age (build time), not read recency: read tracking is not available",
  "rebuild costs are estimates from the producing run's duration",
  "policy holds and retention are not gc-scoped yet; deny rules are enforced by the policy gate at apply",
  "a physical table no environment, protected promotion or warehouse view reads is dropped (DROP TABLE) at apply; a run of its fingerprint rebuilds it; a query naming the table directly (not through a view) is invisible"
]

/** `[gc] physical_delete = true` is a hard error wherever gc runs (plan and apply). */
export const refusePhysicalDelete = Effect.gen(function* () {
  const { config } = yield* ProjectContext
  if (Option.isSome(config) && config.value.settings.gc?.physical_delete === true) {
    return yield* new PhysicalDeleteUnsupported({ configPath: config.value.file })
  }
})

export const checkGcFlags = (input: GcInput): Effect.Effect<void, UsageError | InvalidFlagValue> =>
  !input.derivable
    ? Effect.fail(new UsageError({ detail: "gc supports only the derivability inventory: pass --derivable" }))
    : !Number.isInteger(input.minAgeDays) || input.minAgeDays < 0
      ? Effect.fail(new InvalidFlagValue({ flag: "--min-age-days", detail: `--min-age-days must be a whole number of days >= 0, got ${input.minAgeDays}` }))
      : Effect.void

/** Every candidate with its six checks, newest first: the plain reference for `readInventory`. */
export const inventory = (snapshot: CheckedSnapshot, minAgeDays: number, nowMs: number): ReadonlyArray<GcCandidate> => {
  const refcounts = new Map<string, number>()
  for (const a of snapshot.artifacts) refcounts.set(a.blake3_hash, (refcounts.get(a.blake3_hash) ?? 0) + 1)
  return candidatesOf(snapshot.artifacts).map((row) => {
    const checks = deriveChecks(row, snapshot, minAgeDays, nowMs)
    const p = snapshot.provenance.get(keyOf(row.run_id, row.model_name))
    return {
      model_name: row.model_name,
      run_id: row.run_id,
      blake3_hash: row.blake3_hash,
      file_path: row.file_path,
      size_bytes: row.size_bytes,
      written_at: row.written_at,
      refcount: refcounts.get(row.blake3_hash) ?? 0,
      ...(p === undefined ? {} : { recipe_id: p.recipe_hash, input_proof_class: p.proof_class }),
      rebuild_cost: { estimated: true as const, source_duration_ms: snapshot.durations.get(keyOf(row.run_id, row.model_name)) ?? null },
      derivable: checks.every((c) => c.passed),
      checks: [...checks]
    }
  })
}

export const gcInventory = (
  input: GcInput
): Effect.Effect<GcInventoryOutput, UsageError | InvalidFlagValue | PhysicalDeleteUnsupported | RunStoreFailed | StatementFailed, SqlClient.SqlClient | ProjectContext | Warehouse> =>
  Effect.gen(function* () {
    yield* checkGcFlags(input)
    yield* refusePhysicalDelete
    const now = yield* Clock.currentTimeMillis
    const candidates = yield* readInventory(input.minAgeDays, now)
    const tables = yield* tableCandidates(input.minAgeDays, now)
    const managed = candidates.reduce((n, c) => n + c.size_bytes, 0)
    const derivable = candidates.filter((c) => c.derivable)
    const derivableBytes = derivable.reduce((n, c) => n + c.size_bytes, 0)
    return {
      command: "gc --derivable --dry-run" as const,
      managed_bytes: managed,
      derivable_bytes: derivableBytes,
      ...(managed === 0 ? {} : { derivable_pct: Math.round((derivableBytes / managed) * 10000) / 100 }),
      artifact_count: candidates.length,
      derivable_count: derivable.length,
      read_tracking_available: false as const,
      min_age_days: input.minAgeDays,
      rebuild_cost_ms: derivable.reduce((n, c) => n + (c.rebuild_cost.source_duration_ms ?? 0), 0),
      notes: GC_NOTES,
      candidates: [...candidates],
      ...(tables === undefined ? {} : { tables: [...tables.candidates], keep_promotions: tables.keep })
    }
  })

/** Writes a gc plan of the derivable entries only (none: no plan, exit 0); never deletes anything. */
export const gcPlan = (
  input: GcInput
): Effect.Effect<
  GcPlanOutput,
  UsageError | InvalidFlagValue | PhysicalDeleteUnsupported | RunStoreFailed | StatementFailed | PlanStoreIo | LedgerUnavailable | ModelsUnreadable | ModelFileMismatch | ModelOutsideProject,
  SqlClient.SqlClient | ProjectContext | PlanStore | Ledger | Principal | FileSystem.FileSystem | Path.Path | Warehouse
> =>
  Effect.gen(function* () {
    yield* checkGcFlags(input)
    yield* refusePhysicalDelete
    const snapshot = yield* readCheckedSnapshot
    const now = yield* Clock.currentTimeMillis
    const candidates = inventory(snapshot, input.minAgeDays, now).filter((c) => c.derivable)
    const tableDrops = ((yield* tableCandidates(input.minAgeDays, now))?.candidates ?? []).filter((c) => c.derivable).map(dropOf)
    const rows = new Map(snapshot.artifacts.map((a) => [`${keyOf(a.run_id, a.model_name)}|${a.file_path}`, a]))
    const evictions: Array<GcEviction> = candidates.map((c) => {
      const row = rows.get(`${keyOf(c.run_id, c.model_name)}|${c.file_path}`)!
      const p = snapshot.provenance.get(keyOf(c.run_id, c.model_name))
      return {
        model_name: c.model_name,
        run_id: c.run_id,
        blake3_hash: c.blake3_hash,
        file_path: c.file_path,
        size_bytes: c.size_bytes,
        commit_version: row.commit_version,
        written_at: c.written_at,
        ...(p === undefined ? {} : { recipe_hash: p.recipe_hash, input_hash: p.input_hash, input_proof_class: p.proof_class })
      }
    })
    const totalBytes = evictions.reduce((n, e) => n + e.size_bytes, 0)
    if (evictions.length === 0 && tableDrops.length === 0) {
      return {
        command: "gc --derivable" as const,
        eviction_count: 0,
        total_bytes: 0,
        review_required: false,
        evictions: [],
        message: "nothing is provably derivable — no plan written"
      }
    }
    const models = [...new Set([...evictions, ...tableDrops].map((e) => e.model_name))].sort()
    const tablePayload = tableDrops.length === 0 ? {} : { table_drops: tableDrops }
    const actor = yield* Principal
    const store = yield* PlanStore
    const written = yield* store.write({
      kind: "gc",
      // The models' definitions are fingerprinted: a gc plan is stale once a definition changes (issue 32 item 3).
      payload: { models, min_age_days: input.minAgeDays, total_bytes: totalBytes, evictions, ...tablePayload, fingerprints: yield* workingFingerprints((yield* ProjectContext).modelsDir, models) },
      principal: { class: actor.class, id: actor.id, source: actor.source }
    })
    const planId = written.plan.plan_id
    const ledger = yield* Ledger
    yield* ledger.append(
      evaluationRow({
        actor,
        principal: "agent",
        model: `gc: ${evictions.length} artifact(s) and ${tableDrops.length} physical table(s) across ${models.length} model(s)`,
        capability: "gc",
        effect: "require_review",
        ruleId: null,
        planId,
        reason: governedIssuedReason("gc", actor.class)
      })
    )
    return {
      command: "gc --derivable" as const,
      plan_id: planId,
      path: written.path,
      eviction_count: evictions.length,
      total_bytes: totalBytes,
      review_required: true,
      evictions,
      ...tablePayload,
      message: `${evictions.length} derivable artifact(s) planned for eviction, ${tableDrops.length} unreferenced physical table(s) planned to drop; next: pcli review ${planId} --approve, then pcli apply ${planId}`
    }
  })
