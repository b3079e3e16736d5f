import type { Types } from "effect"
import type { CompileOutput, RunOutput, RunRecord } from "../../schemas/pipeline"
import { type MaskingConfig, maskingWarnings } from "../PolicyEngine/masking"
import type { CompiledProject } from "../Project/compile"

/** W004 as compile reports it: one finding per classified column whose tag resolves nowhere, by model then column. */
const compileFindings = (project: CompiledProject<unknown>, masking: MaskingConfig): CompileOutput["findings"] => {
  const classified = [...project.models.values()]
    .filter((m) => Object.keys(m.classification).length > 0)
    .map((m) => ({ model: m.name, classification: m.classification }))
    .sort((a, b) => (a.model < b.model ? -1 : a.model > b.model ? 1 : 0))
  return maskingWarnings(classified, masking.mask, masking.classifications).map((w) => ({
    code: w.code,
    severity: "warning",
    subject: `${w.model}.${w.column}`,
    message: w.message,
    suggestion: w.suggestion
  }))
}

/** The `pcli compile` output value: the project, and the W004 findings `masking` leaves. */
export const compileOutput = (project: CompiledProject<unknown>, modelsDir: string, masking: MaskingConfig): CompileOutput => ({
  command: "compile",
  models_dir: modelsDir,
  model_count: project.models.size,
  execution_order: [...project.order],
  execution_layers: project.layers.map((l) => [...l]),
  models: project.order.map((name) => {
    const m = project.models.get(name)!
    const item: Types.Mutable<CompileOutput["models"][number]> = {
      name,
      target: `${m.target.catalog}.${m.target.schema}.${m.target.table}`,
      strategy: m.strategy.type,
      depth: m.depth,
      contracted: m.contracted,
      depends_on: [...m.upstream],
      sources: [...m.sourceRefs],
      downstreams: m.downstreams,
      reachable_downstreams: m.reachableDownstreams
    }
    // Added, not spread in (10,000 models at a time; a spread costs several times the rest); the encoders order keys by the schema.
    if (m.layer !== undefined) item.layer = m.layer
    return item
  }),
  findings: compileFindings(project, masking)
})

/** The `pcli run` output value. */
export const runOutput = (run: RunRecord): RunOutput => ({
  command: "run",
  run_id: run.run_id,
  status: run.status,
  started_at: run.started_at,
  finished_at: run.finished_at,
  ...(run.partition_from === null ? {} : { partition_from: run.partition_from }),
  ...(run.partition_to === null ? {} : { partition_to: run.partition_to }),
  models_total: run.models.length,
  models_succeeded: run.models.filter((m) => m.status === "success").length,
  models_failed: run.models.filter((m) => m.status === "failed").length,
  models_skipped: run.models.filter((m) => m.status === "skipped").length,
  models_unchanged: run.models.filter((m) => m.status === "unchanged").length,
  models: run.models.map((m) => ({
    model_name: m.model_name,
    status: m.status,
    strategy: m.strategy,
    ...(m.duration_ms === null ? {} : { duration_ms: m.duration_ms }),
    ...(m.rows_affected === null ? {} : { rows_affected: m.rows_affected }),
    attempts: m.attempts,
    sql_hash: m.sql_hash,
    recipe_hash: m.recipe_hash,
    ...(m.output_hash === null ? {} : { output_hash: m.output_hash }),
    ...(m.status === "skipped" && m.error_message !== null ? { skipped_because: m.error_message } : {}),
    ...(m.status === "skipped" && m.failed_upstream !== null ? { failed_upstream: m.failed_upstream } : {}),
    ...(m.status === "failed" && m.error_code !== null
      ? { error: { code: m.error_code, class: m.error_class ?? "permanent", message: m.error_message ?? "" } }
      : {}),
    warnings: [...m.warnings],
    ...(m.intervals_built === null ? {} : { intervals_built: m.intervals_built })
  }))
})

/** Exit code of a run outcome: 0 when every model succeeded, else 1, partial runs included (decisions.md item 23). */
export const runExitCode = (status: RunOutput["status"]): 0 | 1 => (status === "success" ? 0 : 1)
