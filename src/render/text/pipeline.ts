import type { CompileOutput, RunOutput } from "../../schemas/pipeline"

/** `pcli compile` in text: the layers in execution order with each model's strategy and target, then its warnings (as validate writes findings). */
export const renderCompileText = (out: CompileOutput): string => {
  const lines = [`Compiled ${out.model_count} model(s) from ${out.models_dir} into ${out.execution_layers.length} layer(s)`]
  const byName = new Map(out.models.map((m) => [m.name, m]))
  out.execution_layers.forEach((layer, i) => {
    lines.push(`  layer ${i}:`)
    for (const name of layer) {
      const m = byName.get(name)!
      const deps = m.depends_on.length === 0 ? "" : `  <- ${m.depends_on.join(", ")}`
      lines.push(`    ${name}  [${m.strategy}] ${m.target}${m.contracted ? " (contracted)" : ""}${deps}`)
    }
  })
  for (const f of out.findings) lines.push(`${f.severity.padEnd(7)} ${f.code}  ${f.subject}: ${f.message}`, `          suggestion: ${f.suggestion}`)
  return `${lines.join("\n")}\n`
}

/** `pcli run` in text: the summary line, then one line per model. */
export const renderRunText = (out: RunOutput): string => {
  const lines = [
    `Run ${out.run_id}: ${out.status} (${out.models_succeeded} built, ${out.models_unchanged} unchanged, ${out.models_failed} failed, ${out.models_skipped} skipped)`
  ]
  for (const m of out.models) {
    const intervals = m.intervals_built === undefined ? "" : `, ${m.intervals_built} interval${m.intervals_built === 1 ? "" : "s"}`
    const detail =
      m.status === "success"
        ? `${m.rows_affected ?? 0} rows${intervals}, ${m.duration_ms ?? 0} ms${m.attempts > 1 ? `, ${m.attempts} attempts` : ""}`
        : m.status === "failed"
          ? `[${m.error?.code}] ${m.error?.message}`
          : m.status === "unchanged"
            ? "nothing it depends on changed"
            : (m.skipped_because ?? "")
    lines.push(`  ${m.status.padEnd(9)} ${m.model_name}  ${detail}`)
    for (const w of m.warnings) lines.push(`          warning: ${w}`)
  }
  for (const f of out.freshness ?? []) lines.push(`  freshness ${f.model}  ${f.status} (${f.severity}): ${f.detail}`)
  return `${lines.join("\n")}\n`
}
