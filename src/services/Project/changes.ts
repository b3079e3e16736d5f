import { Effect } from "effect"
import { Warehouse, type StatementFailed } from "../Warehouse/Warehouse"

/** What policy evaluates a changed model at (governance §2.3). */
export type ChangeClass = "schema_change.additive" | "value_change" | "schema_change.breaking"

export interface ModelRevision {
  readonly sql: string
  readonly columns: ReadonlyArray<{ readonly name: string; readonly type: string }>
}

export type ChangeFinding =
  | { readonly kind: "model_added" }
  | { readonly kind: "column_added"; readonly column: string }
  | { readonly kind: "column_removed"; readonly column: string }
  | { readonly kind: "column_type_changed"; readonly column: string; readonly from: string; readonly to: string }
  | { readonly kind: "sql_body_changed" }

/** Differences between two revisions of a model; `before` undefined = the model is new. */
export const changeFindings = (before: ModelRevision | undefined, after: ModelRevision): ReadonlyArray<ChangeFinding> => {
  if (before === undefined) return [{ kind: "model_added" }]
  const findings: Array<ChangeFinding> = []
  const old = new Map(before.columns.map((c) => [c.name.toLowerCase(), c]))
  const now = new Map(after.columns.map((c) => [c.name.toLowerCase(), c]))
  for (const [key, col] of old) {
    const next = now.get(key)
    if (next === undefined) findings.push({ kind: "column_removed", column: col.name })
    else if (next.type.toUpperCase() !== col.type.toUpperCase()) {
      findings.push({ kind: "column_type_changed", column: col.name, from: col.type, to: next.type })
    }
  }
  for (const [key, col] of now) if (!old.has(key)) findings.push({ kind: "column_added", column: col.name })
  // A body edit that only adds columns is part of the additive change, not a separate finding.
  if (findings.length === 0 && before.sql.trim() !== after.sql.trim()) findings.push({ kind: "sql_body_changed" })
  return findings
}

/**
 * Added columns / added model only → additive; only the SQL body changed → value change;
 * anything else, including no findings at all → breaking.
 */
export const classifyChange = (before: ModelRevision | undefined, after: ModelRevision): ChangeClass => {
  const findings = changeFindings(before, after)
  if (findings.length > 0 && findings.every((f) => f.kind === "column_added" || f.kind === "model_added")) {
    return "schema_change.additive"
  }
  if (findings.length === 1 && findings[0]!.kind === "sql_body_changed") return "value_change"
  return "schema_change.breaking"
}

/** Output columns of a SELECT as the warehouse types them (`DESCRIBE <sql>`), nothing executed. */
export const describeColumns = (
  sql: string
): Effect.Effect<ReadonlyArray<{ name: string; type: string }>, StatementFailed, Warehouse> =>
  Effect.flatMap(Warehouse, (wh) => wh.execute(`DESCRIBE ${sql}`)).pipe(
    Effect.map((result) => result.rows.map((row) => ({ name: String(row[0]), type: String(row[1]) })))
  )
