// The relations a SELECT reads from and how a column name resolves among them. Never a guess:
// a name two relations could supply, or one only a relation of unknown columns could, is unresolved.

/** Where a value comes from: a model's column, a source table's column, or a table function's. */
export interface ColumnSource {
  readonly kind: "model" | "source" | "function"
  readonly relation: string
  readonly column: string
}

/** What one column or expression reads, and why any part of it could not be told. */
export interface Origin {
  readonly reads: ReadonlyArray<ColumnSource>
  readonly unresolved: ReadonlyArray<string>
}

export const emptyOrigin: Origin = { reads: [], unresolved: [] }

export const mergeOrigins = (origins: ReadonlyArray<Origin>): Origin => {
  const seen = new Set<string>()
  const reads: Array<ColumnSource> = []
  const unresolved: Array<string> = []
  for (const o of origins) {
    for (const r of o.reads) {
      const key = `${r.kind}\0${r.relation}\0${r.column}`
      if (seen.has(key)) continue
      seen.add(key)
      reads.push(r)
    }
    for (const u of o.unresolved) if (!unresolved.includes(u)) unresolved.push(u)
  }
  return { reads, unresolved }
}

/** A named output column of a query, with its origin. */
export interface NamedColumn {
  readonly name: string
  readonly origin: Origin
}

/** A relation in a FROM clause: its alias and, when known, its columns in order. */
export interface Relation {
  /** Lower-cased alias (or table name) by which columns are qualified. */
  readonly alias: string
  /** How the relation is named to a user (`staging.stg_orders`, `cte orders`). */
  readonly label: string
  /** Undefined when the relation's columns cannot be known (a source table, a table function). */
  readonly columns: ReadonlyArray<NamedColumn> | undefined
  /** For a relation of unknown columns: the origin of a column it is known to supply. */
  readonly columnOrigin: (column: string) => Origin
  /** USING columns a join already took from a relation to its left (a `*` shows them once). */
  readonly hiddenFromStar?: ReadonlySet<string>
}

const lower = (s: string) => s.toLowerCase()

const findColumn = (relation: Relation, column: string) => relation.columns?.find((c) => lower(c.name) === lower(column))

/** The relation a qualifier names, if any. */
export const relationNamed = (relations: ReadonlyArray<Relation>, qualifier: string) => relations.find((r) => r.alias === lower(qualifier))

/** A column of a named relation: its own origin, or unresolved when a relation of known columns lacks it. */
export const qualifiedColumn = (relation: Relation, column: string): Origin => {
  if (relation.columns === undefined) return relation.columnOrigin(column)
  const found = findColumn(relation, column)
  return found === undefined ? { reads: [], unresolved: [`${relation.label} has no column ${column}`] } : found.origin
}

/** An unqualified column: the one relation that supplies it, else unresolved (`lateral` are earlier select aliases). */
export const unqualifiedColumn = (relations: ReadonlyArray<Relation>, column: string, lateral: ReadonlyArray<NamedColumn>): Origin => {
  // A USING column is the left side's (DuckDB binds it there); the right side's copy is not a second candidate.
  const having = relations.filter((r) => findColumn(r, column) !== undefined && !(r.hiddenFromStar?.has(lower(column)) ?? false))
  const unknown = relations.filter((r) => r.columns === undefined)
  if (having.length === 1 && unknown.length === 0) return findColumn(having[0]!, column)!.origin
  if (having.length > 1) {
    return { reads: [], unresolved: [`column ${column} could come from ${having.map((r) => r.label).join(" or ")}`] }
  }
  if (having.length === 0 && unknown.length === 1 && relations.length === 1) return unknown[0]!.columnOrigin(column)
  const alias = lateral.find((c) => lower(c.name) === lower(column))
  if (having.length === 0 && unknown.length === 0 && alias !== undefined) return alias.origin
  if (unknown.length > 0) {
    const candidates = [...having, ...unknown].map((r) => r.label).join(" or ")
    return { reads: [], unresolved: [`column ${column} could come from ${candidates} (columns not known)`] }
  }
  return { reads: [], unresolved: [`column ${column} is not a column of ${relations.map((r) => r.label).join(", ") || "any relation"}`] }
}

/** The columns a `*` (or `rel.*`) expands to; undefined when a relation's columns are unknown. */
export const starColumns = (
  relations: ReadonlyArray<Relation>,
  exclude: ReadonlySet<string>,
  qualifiedExclude: ReadonlySet<string> = new Set()
): ReadonlyArray<NamedColumn> | undefined => {
  const out: Array<NamedColumn> = []
  for (const r of relations) {
    if (r.columns === undefined) return undefined
    for (const c of r.columns) {
      const name = lower(c.name)
      if (exclude.has(name) || qualifiedExclude.has(`${r.alias}.${name}`) || (r.hiddenFromStar?.has(name) ?? false)) continue
      out.push(c)
    }
  }
  return out
}
