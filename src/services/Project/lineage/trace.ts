// Following one column through the project: upstream along what it reads, downstream along what reads it.
import type { ProjectColumns } from "./project"
import type { ColumnSource } from "./scope"

export interface TracedColumn extends ColumnSource {
  readonly distance: number
}

export interface UnresolvedModel {
  readonly model: string
  readonly reason: string
}

const lower = (s: string) => s.toLowerCase()
const keyOf = (c: ColumnSource) => `${c.kind}\0${lower(c.relation)}\0${lower(c.column)}`
const within = (depth: number | undefined, distance: number) => depth === undefined || distance <= depth

/** The columns `model.column` reads, transitively through models, within `depth` edges. */
export const traceUpstream = (columns: ProjectColumns, model: string, column: string, depth: number | undefined) => {
  const found: Array<TracedColumn> = []
  const unresolved: Array<UnresolvedModel> = []
  const seen = new Set<string>()
  let frontier: ReadonlyArray<ColumnSource> = [{ kind: "model", relation: model, column }]
  for (let distance = 1; frontier.length > 0 && within(depth, distance); distance++) {
    const next: Array<ColumnSource> = []
    for (const at of frontier) {
      if (at.kind !== "model") continue
      const lineage = columns.get(at.relation)
      const out = lineage?.columns?.find((c) => lower(c.name) === lower(at.column))
      if (out === undefined) {
        unresolved.push({ model: at.relation, reason: lineage?.columns === undefined ? (lineage?.columnsUnresolved ?? []).join("; ") || "not analysed" : `no output column ${at.column}` })
        continue
      }
      for (const reason of out.origin.unresolved) unresolved.push({ model: at.relation, reason: `${at.column}: ${reason}` })
      for (const read of out.origin.reads) {
        if (seen.has(keyOf(read))) continue
        seen.add(keyOf(read))
        found.push({ ...read, distance })
        next.push(read)
      }
    }
    frontier = next
  }
  return { found, unresolved }
}

/**
 * The downstream columns that read `model.column`, transitively, within `depth` edges; the models
 * that read a traced column anywhere (`readBy`); and downstream models whose SQL could not be told.
 */
export const traceDownstream = (
  columns: ProjectColumns,
  downstreamOf: (model: string) => ReadonlyArray<string>,
  model: string,
  column: string,
  depth: number | undefined
) => {
  const found: Array<TracedColumn> = []
  const readBy = new Map<string, number>()
  const unresolved: Array<UnresolvedModel> = []
  const seen = new Set<string>([keyOf({ kind: "model", relation: model, column })])
  const judged = new Set<string>()
  let frontier: ReadonlyArray<ColumnSource> = [{ kind: "model", relation: model, column }]
  for (let distance = 1; frontier.length > 0 && within(depth, distance); distance++) {
    const next: Array<ColumnSource> = []
    for (const at of frontier) {
      const wanted = keyOf(at)
      for (const d of downstreamOf(at.relation)) {
        const lineage = columns.get(d)
        if (lineage === undefined) continue
        if (lineage.references.reads.some((r) => keyOf(r) === wanted) && !readBy.has(d)) readBy.set(d, distance)
        if (lineage.references.unresolved.length > 0 && !judged.has(d)) {
          judged.add(d)
          for (const reason of lineage.references.unresolved) unresolved.push({ model: d, reason })
        }
        for (const out of lineage.columns ?? []) {
          if (!out.origin.reads.some((r) => keyOf(r) === wanted)) continue
          const traced: ColumnSource = { kind: "model", relation: d, column: out.name }
          if (seen.has(keyOf(traced))) continue
          seen.add(keyOf(traced))
          found.push({ ...traced, distance })
          next.push(traced)
        }
      }
    }
    frontier = next
  }
  return { found, readBy: [...readBy].map(([m, distance]) => ({ model: m, distance })), unresolved }
}

/** Models that read `model.column` anywhere, directly: what a removed or retyped column breaks. */
export const directReaders = (columns: ProjectColumns, downstream: ReadonlyArray<string>, model: string, column: string) => {
  const wanted = keyOf({ kind: "model", relation: model, column })
  const readers: Array<string> = []
  const unresolved: Array<string> = []
  for (const d of downstream) {
    const lineage = columns.get(d)
    if (lineage === undefined) continue
    if (lineage.references.reads.some((r) => keyOf(r) === wanted)) readers.push(d)
    else if (lineage.references.unresolved.length > 0) unresolved.push(d)
  }
  return { readers, unresolved }
}
