import { Effect } from "effect"
import type { BreakingFinding } from "../schemas/reviewOutput"
import { directReaders, projectColumns } from "../services/Project/lineage"
import { compiledProject } from "./compile"

/** Findings whose column a downstream model may read: the impact a reviewer needs to see. */
const COLUMN_FINDINGS = new Set(["column_removed", "column_type_changed", "column_nullability_loosened"])

/**
 * Each breaking column finding with the direct downstream models that read the column (and those
 * whose SQL cannot be told), from column lineage over the working tree, the changed models read as
 * still having their removed columns. A project that does not compile leaves the findings as they are.
 */
export const withImpact = (breaking: ReadonlyArray<BreakingFinding>) =>
  Effect.gen(function* () {
    const columnFindings = breaking.filter((b) => b.finding.column !== undefined && COLUMN_FINDINGS.has(b.finding.kind))
    if (columnFindings.length === 0) return breaking
    const extra = new Map<string, Array<string>>()
    for (const b of columnFindings) if (b.finding.kind === "column_removed") extra.set(b.model, [...(extra.get(b.model) ?? []), b.finding.column!])
    const project = yield* compiledProject
    const columns = yield* projectColumns(project, extra)
    return breaking.map((b) => {
      if (!columnFindings.includes(b)) return b
      const downstream = project.downstream.get(b.model) ?? []
      const { readers, unresolved } = directReaders(columns, downstream, b.model, b.finding.column!)
      return { ...b, read_by: readers, ...(unresolved.length === 0 ? {} : { read_by_unresolved: unresolved }) }
    })
  }).pipe(Effect.orElseSucceed(() => breaking))
