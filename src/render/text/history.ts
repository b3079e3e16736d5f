import type { HistoryListOutput, HistoryRun, HistoryRunOutput } from "../../schemas/history"

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`

const counts = (r: HistoryRun) =>
  `${r.models_built} built, ${r.models_unchanged} unchanged, ${r.models_failed} failed, ${r.models_skipped} skipped` +
  (r.retries > 0 ? `, ${r.retries} ${r.retries === 1 ? "retry" : "retries"}` : "")

export const historyListText = (out: HistoryListOutput): string => {
  if (out.runs.length === 0) return "No runs recorded.\n"
  const lines = out.runs.map((r) => {
    const model =
      r.model === undefined
        ? ""
        : `  ${r.model.name}: ${r.model.status}${r.model.attempts > 1 ? ` (${r.model.attempts} attempts)` : ""}`
    return `${r.run_id}  ${r.status.padEnd(15)} ${r.started_at}  ${seconds(r.duration_ms).padStart(9)}  ${counts(r)}${model}`
  })
  return `${lines.join("\n")}\n`
}

export const historyRunText = (out: HistoryRunOutput): string => {
  const r = out.run
  const window = out.partition_from === undefined ? "" : ` window ${out.partition_from}..${out.partition_to ?? ""}`
  const lines = [
    `Run ${r.run_id}: ${r.status} (${counts(r)})`,
    `  trigger ${r.trigger}, started ${r.started_at}, finished ${r.finished_at}, ${seconds(r.duration_ms)}${window}`
  ]
  for (const m of out.models) {
    const attempts = m.attempts > 1 ? `, ${m.attempts} attempts` : ""
    const intervals = m.intervals_built === undefined ? "" : `, ${m.intervals_built} interval${m.intervals_built === 1 ? "" : "s"}`
    const detail =
      m.status === "success"
        ? `${m.rows_affected ?? 0} rows${intervals}, ${m.duration_ms ?? 0} ms${attempts}`
        : m.status === "failed"
          ? `[${m.error?.code}] ${m.error?.message}${attempts}`
          : m.status === "unchanged"
            ? "unchanged"
            : (m.skipped_because ?? "")
    lines.push(`  ${m.status.padEnd(9)} ${m.model_name}  ${detail}`)
  }
  return `${lines.join("\n")}\n`
}
