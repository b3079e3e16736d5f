import type { BackfillOutput, GcApplyOutput, GcInventoryOutput, GcPlanOutput, RestoreApplyOutput, RestorePlanOutput } from "../../schemas/reclaim"

export const backfillText = (o: BackfillOutput): string =>
  [
    `backfill plan ${o.plan_id} (${o.trigger}): ${o.path}`,
    `seeds: ${o.seed_models.join(", ")}`,
    "layers:",
    ...o.execution_layers.map((l, i) => `  ${i}: ${l.join(", ")}`),
    ...(o.partition_scope === undefined
      ? []
      : [`window: ${o.partition_scope.from} .. ${o.partition_scope.to} on ${o.partition_scope.models.length === 0 ? "no model (inert)" : o.partition_scope.models.join(", ")}`]),
    `estimated cost (${o.cost_estimate.basis})${o.cost_estimate.total_duration_ms === undefined ? "" : `: ~${o.cost_estimate.total_duration_ms} ms of warehouse time`}`,
    ...o.warnings.map((w) => `warning: ${w}`),
    o.message,
    `next: ${o.review_command}, then ${o.apply_command}`
  ].join("\n")

export const gcInventoryText = (o: GcInventoryOutput): string =>
  [
    `managed ${o.managed_bytes} bytes in ${o.artifact_count} artifact(s); derivable ${o.derivable_bytes} bytes${o.derivable_pct === undefined ? "" : ` (${o.derivable_pct}%)`} in ${o.derivable_count}; min age ${o.min_age_days} day(s); rebuild ~${o.rebuild_cost_ms} ms`,
    ...o.candidates.flatMap((c) => [
      `${c.derivable ? "derivable" : "kept     "} ${c.model_name} ${c.blake3_hash.slice(0, 12)} ${c.size_bytes} bytes (run ${c.run_id}, refcount ${c.refcount})`,
      ...c.checks.map((k) => `    ${k.passed ? "pass" : "FAIL"} ${k.check}: ${k.detail}`)
    ]),
    ...(o.tables === undefined
      ? []
      : [
          `physical tables: ${o.tables.length}, ${o.tables.filter((t) => t.derivable).length} unreferenced and reclaimable (keep_promotions = ${o.keep_promotions ?? "?"})`,
          ...o.tables.flatMap((t) => [
            `${t.derivable ? "droppable" : "kept     "} table ${t.physical}${t.model_name === null ? "" : ` (model ${t.model_name})`}`,
            ...t.checks.map((k) => `    ${k.passed ? "pass" : "FAIL"} ${k.check}: ${k.detail}`)
          ])
        ]),
    ...o.notes.map((n) => `note: ${n}`)
  ].join("\n")

export const gcPlanText = (o: GcPlanOutput): string =>
  [
    ...(o.plan_id === undefined ? [] : [`gc plan ${o.plan_id}: ${o.path ?? ""}`]),
    ...o.evictions.map((e) => `  evict ${e.model_name} ${e.blake3_hash.slice(0, 12)} ${e.size_bytes} bytes (${e.file_path})`),
    ...(o.table_drops ?? []).map((d) => `  drop table ${d.physical} (model ${d.model_name}, built by run ${d.run_id})`),
    o.message
  ].join("\n")

export const gcApplyText = (o: GcApplyOutput): string =>
  [
    `gc plan ${o.plan_id}: evicted ${o.evicted_count} (${o.bytes_evicted} bytes), refused ${o.refused_count}, already evicted ${o.already_evicted.length}; no artifact bytes deleted${o.tables_dropped === undefined ? "" : `; dropped ${o.tables_dropped.length} physical table(s), refused ${o.tables_refused?.length ?? 0}`}`,
    ...o.evicted.map((e) => `  evicted ${e.model_name} ${e.blake3_hash.slice(0, 12)} (tombstone recorded)`),
    ...o.refused.map((r) => `  refused ${r.model_name} ${r.blake3_hash.slice(0, 12)}: ${r.reason}`),
    ...(o.tables_dropped ?? []).map((t) => `  dropped table ${t.physical} (model ${t.model_name}; tombstone recorded)`),
    ...(o.tables_refused ?? []).map((t) => `  refused table ${t.physical} (model ${t.model_name}): ${t.reason}`)
  ].join("\n")

export const restorePlanText = (o: RestorePlanOutput): string =>
  [
    `restore plan ${o.plan_id} for ${o.target}: ${o.path}`,
    ...o.restorations.map((r) => `  ${r.model_name} ${r.blake3_hash.slice(0, 12)} ${r.size_bytes} bytes at ${r.file_path} (evicted ${r.evicted_at})`),
    o.message
  ].join("\n")

export const restoreApplyText = (o: RestoreApplyOutput): string =>
  [
    `restore plan ${o.plan_id}: restored ${o.restored_count}, refused ${o.refused_count}, already restored ${o.already_restored.length}`,
    ...o.restored.map((r) => `  restored ${r.model_name} ${r.blake3_hash.slice(0, 12)}${r.bytes_written ? "" : " (verified bytes already in place)"}`),
    ...o.refused.map((r) => `  refused ${r.model_name} ${r.blake3_hash.slice(0, 12)} [${r.condition}]: ${r.reason}`)
  ].join("\n")
