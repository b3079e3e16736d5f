import type { TargetBlock } from "../../schemas/model"

/**
 * A model's SQL as executed, reading upstream models built earlier in this run from their physical
 * tables rather than through their views (`schema.table` → `"pcli_physical"."…" AS "table"`).
 * The view is `SELECT * FROM` that table, committed in the upstream's build, so the rows are the
 * same; DuckDB 1.5 plans a correlated subquery over a view (any subquery) as a cross product where
 * it joins the table itself (`NOT EXISTS (… WHERE t.id = o.id + 1)`: 150 ms against 4 ms on 10k
 * rows; performance.md "Run CPU on the realistic mix"). Only the executed SQL changes: what a run
 * records (`sqlAsRun`, its hashes) stays the model's own.
 *
 * Conservative: an upstream is left to its view unless every mention of its table name in the SQL
 * is a `schema.table` reference (optionally catalog-qualified) not followed by `.` (so no
 * `schema.table.column`, no `table.column`, no CTE or literal of that name, no reference inside a string).
 */
export interface DirectRead {
  readonly view: TargetBlock
  /** The physical relation as SQL, quoted (`"pcli_physical"."main__m__…"`). */
  readonly physical: string
}

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
const part = (p: string) => `(?:"${escapeRegex(p)}"|${escapeRegex(p)})`

/** Words after a relation that begin a clause or a join, never an alias: the reference gets `AS "table"`. */
const clauseAfter = /^\s*(?:$|[),;]|(?:WHERE|JOIN|LEFT|RIGHT|INNER|FULL|CROSS|NATURAL|ON|USING|GROUP|ORDER|LIMIT|OFFSET|UNION|EXCEPT|INTERSECT|HAVING|QUALIFY|WINDOW)\b)/i

/** Where single-quoted literals lie (comments and quoted identifiers skipped); undefined when unsure (`$` quoting, an unclosed quote). */
export const literalSpans = (sql: string): ReadonlyArray<readonly [number, number]> | undefined => {
  if (sql.includes("$")) return undefined
  const spans: Array<readonly [number, number]> = []
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i]
    const close = c === "'" ? "'" : c === '"' ? '"' : c === "-" && sql[i + 1] === "-" ? "\n" : c === "/" && sql[i + 1] === "*" ? "*/" : undefined
    if (close === undefined) continue
    let j = sql.indexOf(close, i + (close === "*/" ? 2 : 1))
    while (close.length === 1 && close !== "\n" && j !== -1 && sql[j + 1] === close) j = sql.indexOf(close, j + 2)
    if (j === -1 && close !== "\n") return undefined
    const end = j === -1 ? sql.length : j + close.length
    if (c === "'") spans.push([i, end])
    i = end - 1
  }
  return spans
}

const rewriteOne = (sql: string, read: DirectRead): string => {
  const { catalog, schema, table } = read.view
  const reference = new RegExp(`(?<![\\w."'])(?:${part(catalog)}\\s*\\.\\s*)?${part(schema)}\\s*\\.\\s*${part(table)}(?![\\w"'.])`, "gi")
  const mention = new RegExp(`(?<![\\w])"?${escapeRegex(table)}"?(?![\\w])`, "gi")
  const references = [...sql.matchAll(reference)]
  if (references.length === 0) return sql
  // Every mention of the name (quoted or not, any case) must sit inside one of the references found.
  const inside = (at: number) => references.some((r) => at >= r.index && at < r.index + r[0].length)
  for (const m of sql.matchAll(mention)) if (!inside(m.index)) return sql
  // A reference inside a string literal is data, not a read: such SQL keeps its views.
  const literals = literalSpans(sql)
  if (literals === undefined || references.some((r) => literals.some(([a, b]) => r.index < b && r.index + r[0].length > a))) return sql
  let out = ""
  let last = 0
  for (const r of references) {
    const end = r.index + r[0].length
    const alias = clauseAfter.test(sql.slice(end, end + 40)) ? ` AS "${table.replace(/"/g, '""')}"` : ""
    out += sql.slice(last, r.index) + read.physical + alias
    last = end
  }
  return out + sql.slice(last)
}

export const readPhysicalTables = (sql: string, reads: ReadonlyArray<DirectRead>): string => reads.reduce(rewriteOne, sql)
