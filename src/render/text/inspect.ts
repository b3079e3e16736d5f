import type { LsOutput, ModelLineageOutput, TestOutput } from "../../schemas/inspect"

const table = (header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>) => {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
  const line = (cells: ReadonlyArray<string>) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join("  ")
  return [line(header), ...rows.map(line)].join("\n")
}

/** `pcli ls`: one row per model. */
export const lsText = (out: LsOutput): string => {
  if (out.models.length === 0) return out.select.length === 0 ? "No models.\n" : `No models match --select ${out.select.join(" ")}.\n`
  const rows = out.models.map((m) => [
    m.name,
    m.strategy,
    m.target,
    Object.entries(m.tags).map(([k, v]) => `${k}=${v}`).join(",") || "-",
    m.contracted ? `${m.contract_columns} col${m.contract_columns === 1 ? "" : "s"}` : "-",
    String(m.tests)
  ])
  return `${table(["MODEL", "STRATEGY", "TARGET", "TAGS", "CONTRACT", "TESTS"], rows)}\n${out.count} model${out.count === 1 ? "" : "s"}\n`
}

type ColumnRef = { readonly kind: string; readonly relation: string; readonly column: string }
const ref = (r: ColumnRef) => (r.kind === "source" ? `source ${r.relation}.${r.column}` : `${r.relation}.${r.column}`)

/** `pcli lineage`: models up and down, the model's columns, and a `--column` trace. */
export const lineageText = (out: ModelLineageOutput): string => {
  const lines = [`${out.model}${out.depth === null ? "" : ` (depth ${out.depth})`}`]
  const nodes = (title: string, list: ReadonlyArray<{ readonly model: string; readonly distance: number }> | undefined) => {
    if (list === undefined) return
    lines.push(`${title}: ${list.length === 0 ? "none" : list.map((n) => (n.distance === 1 ? n.model : `${n.model} (${n.distance})`)).join(", ")}`)
  }
  nodes("upstream", out.upstream)
  nodes("downstream", out.downstream)
  if (out.sources.length > 0) lines.push(`sources: ${out.sources.join(", ")}`)
  if (out.columns === null) lines.push(`columns: unresolved (${out.columns_unresolved.join("; ")})`)
  else {
    lines.push("columns:")
    const width = Math.max(0, ...out.columns.map((c) => c.name.length))
    for (const c of out.columns) {
      const reads = c.reads.map(ref).join(", ") || "(no column)"
      const unresolved = c.unresolved.length === 0 ? "" : `${c.reads.length === 0 ? "" : "; "}unresolved: ${c.unresolved.join("; ")}`
      lines.push(`  ${c.name.padEnd(width)}  <- ${c.reads.length === 0 && unresolved !== "" ? "" : reads}${unresolved}`)
    }
  }
  const trace = out.column
  if (trace !== undefined) {
    lines.push(`column ${out.model}.${trace.name}:`)
    const traced = (title: string, list: ReadonlyArray<ColumnRef & { readonly distance: number }> | undefined) => {
      if (list !== undefined) lines.push(`  ${title}: ${list.length === 0 ? "none" : list.map((c) => `${ref(c)}${c.distance === 1 ? "" : ` (${c.distance})`}`).join(", ")}`)
    }
    traced("reads", trace.upstream)
    traced("read into", trace.downstream)
    if (trace.read_by !== undefined) lines.push(`  read by: ${trace.read_by.length === 0 ? "none" : trace.read_by.map((n) => n.model).join(", ")}`)
    for (const u of trace.unresolved) lines.push(`  unresolved in ${u.model}: ${u.reason}`)
  }
  return `${lines.join("\n")}\n`
}

/** `pcli test`: one line per test, grouped by model, and the totals. */
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`

/** A freshness check as `pcli test` labels its tests: a stale, empty or unreadable table is WARN at severity warning. */
const freshnessLabel = (c: NonNullable<TestOutput["freshness"]>[number]) =>
  c.status === "fresh" ? "FRESH" : c.severity === "warning" ? "WARN" : c.status === "error" ? "ERROR" : "FAIL"

/** `pcli test`: one line per test and per freshness check, then the counts. */
export const testText = (out: TestOutput): string => {
  const checks = out.freshness ?? []
  if (out.models.length === 0 && checks.length === 0 && out.freshness_not_built.length === 0) {
    return out.select.length === 0 ? "No model has data tests or [freshness].\n" : `No selected model has data tests or [freshness] (--select ${out.select.join(" ")}).\n`
  }
  const lines: Array<string> = []
  for (const m of out.models) {
    if (m.status === "not_built") {
      lines.push(`NOT BUILT  ${m.model} (${m.relation}): ${plural(m.tests.length, "test")} not run`)
      continue
    }
    for (const t of m.tests) {
      const label = { pass: "PASS", fail: "FAIL", warn: "WARN", error: "ERROR" }[t.status]
      const extra = t.failing === undefined ? (t.detail === undefined ? "" : `: ${t.detail}`) : ` (${t.failing} offending)`
      lines.push(`${label.padEnd(10)} ${m.model} ${t.test}${extra}`)
    }
  }
  for (const c of checks) lines.push(`${freshnessLabel(c).padEnd(10)} ${c.model} freshness(${c.time_column} within ${c.max_lag_seconds}s, ${c.severity}): ${c.detail}`)
  for (const m of out.freshness_not_built) lines.push(`NOT BUILT  ${m}: freshness not checked`)
  if (out.models.length > 0) {
    lines.push(`${plural(out.tests, "test")}: ${out.passed} passed, ${out.failed} failed, ${out.warned} warned, ${out.errored} could not run, ${plural(out.not_built, "model")} not built`)
  }
  if (checks.length > 0 || out.freshness_not_built.length > 0) {
    const fresh = checks.filter((c) => c.status === "fresh").length
    const warned = checks.filter((c) => c.status !== "fresh" && c.severity === "warning").length
    lines.push(`${plural(checks.length, "freshness check")}: ${fresh} fresh, ${out.freshness_failed} failed, ${warned} warned, ${plural(out.freshness_not_built.length, "model")} not built`)
  }
  return `${lines.join("\n")}\n`
}
