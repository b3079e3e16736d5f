import type { ModelExecution } from "../../schemas/pipeline"

// How `run_models` holds a model's execution: its row shape and the codec both ways.

/** Code of a skipped model's execution: an upstream failed (decisions.md item 23). */
export const UPSTREAM_FAILED = "upstream-failed"

export const skippedMessage = (failedUpstream: string) => `upstream ${failedUpstream} failed`

export type ModelRow = Omit<ModelExecution, "warnings" | "failed_upstream"> & { readonly warnings_json: string }

export const toNumberOrNull = (v: unknown) => (v === null || v === undefined ? null : Number(v))

// `run_models` has no column for the failed upstream: a skipped row's error_message holds its name.
export const toModelRow = ({ warnings, failed_upstream, ...m }: ModelExecution): ModelRow => ({
  ...m,
  error_message: m.status === "skipped" && m.error_code === UPSTREAM_FAILED ? failed_upstream : m.error_message,
  warnings_json: JSON.stringify(warnings)
})

export const fromModelRow = ({ warnings_json, ...m }: ModelRow): unknown => {
  const upstream = m.status === "skipped" && m.error_code === UPSTREAM_FAILED ? m.error_message : null
  return {
    ...m,
    duration_ms: toNumberOrNull(m.duration_ms),
    rows_affected: toNumberOrNull(m.rows_affected),
    intervals_built: toNumberOrNull(m.intervals_built),
    attempts: Number(m.attempts),
    position: Number(m.position),
    error_message: upstream === null ? m.error_message : skippedMessage(upstream),
    failed_upstream: upstream,
    warnings: JSON.parse(warnings_json) as unknown
  }
}
