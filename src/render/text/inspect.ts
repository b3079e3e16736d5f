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
export const testText = (out: TestOutput): string => {
  if (out.models.length === 0) return out.select.length === 0 ? "No model has data tests.\n" : `No selected model has data tests (--select ${out.select.join(" ")}).\n`
  const lines: Array<string> = []
  for (const m of out.models) {
    if (m.status === "not_built") {
      lines.push(`NOT BUILT  ${m.model} (${m.relation}): ${m.tests.length} test${m.tests.length === 1 ? "" : "s"} not run`)
      continue
    }
    for (const t of m.tests) {
      const label = { pass: "PASS", fail: "FAIL", warn: "WARN", error: "ERROR" }[t.status]
      const extra = t.failing === undefined ? (t.detail === undefined ? "" : `: ${t.detail}`) : ` (${t.failing} offending)`
      lines.push(`${label.padEnd(10)} ${m.model} ${t.test}${extra}`)
    }
  }
  lines.push(`${out.tests} test${out.tests === 1 ? "" : "s"}: ${out.passed} passed, ${out.failed} failed, ${out.warned} warned, ${out.errored} could not run, ${out.not_built} model${out.not_built === 1 ? "" : "s"} not built`)
  return `${lines.join("\n")}\n`
}
