// Column lineage of one query from DuckDB's parsed SQL (`json_serialize_sql`): which columns of which
// relations each output column reads, and which columns the query reads anywhere (filters, joins,
// grouping). Whatever the AST does not settle is reported as unresolved, with the reason.
import {
  type ColumnSource,
  emptyOrigin,
  mergeOrigins,
  type NamedColumn,
  type Origin,
  qualifiedColumn,
  type Relation,
  relationNamed,
  starColumns,
  unqualifiedColumn
} from "./scope"

type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json }
type JsonObject = { readonly [key: string]: Json }

const isObject = (v: Json | undefined): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v)
const text = (v: Json | undefined) => (typeof v === "string" ? v : "")
const list = (v: Json | undefined): ReadonlyArray<Json> => (Array.isArray(v) ? v : [])

/** What a base table in the SQL is: a model of the project, or a table from outside it. */
export type TableResolver = (ref: { readonly catalog?: string; readonly schema?: string; readonly table: string }) => {
  readonly kind: "model" | "source"
  readonly name: string
  /** The model's output columns, when they are known. */
  readonly columns: ReadonlyArray<string> | undefined
}

/** A query's lineage: its output columns (undefined when they cannot be told) and what it reads anywhere. */
export interface QueryLineage {
  readonly columns: ReadonlyArray<NamedColumn> | undefined
  /** Why the output columns are not known. */
  readonly columnsUnresolved: ReadonlyArray<string>
  readonly references: Origin
}

interface Context {
  readonly resolve: TableResolver
  /** CTEs in scope by lower-cased name. */
  readonly ctes: ReadonlyMap<string, QueryLineage>
}

const unresolvedQuery = (reason: string): QueryLineage => ({ columns: undefined, columnsUnresolved: [reason], references: { reads: [], unresolved: [reason] } })

/** A relation whose columns are not known: any column it is asked for is read as itself. */
const opaque = (alias: string, label: string, source: (column: string) => ColumnSource): Relation => ({
  alias,
  label,
  columns: undefined,
  columnOrigin: (column) => ({ reads: [source(column)], unresolved: [] })
})

const known = (alias: string, label: string, columns: ReadonlyArray<NamedColumn>): Relation => ({ alias, label, columns, columnOrigin: () => emptyOrigin })

const renamed = (columns: ReadonlyArray<NamedColumn> | undefined, aliases: ReadonlyArray<Json>) =>
  columns === undefined || aliases.length === 0 ? columns : columns.map((c, i) => ({ name: text(aliases[i]) || c.name, origin: c.origin }))

interface FromResult {
  readonly relations: ReadonlyArray<Relation>
  /** Expressions the FROM clause evaluates (join conditions, USING columns), read once relations are known. */
  readonly conditions: ReadonlyArray<(relations: ReadonlyArray<Relation>) => Origin>
  readonly unresolved: ReadonlyArray<string>
}

const baseTable = (ctx: Context, node: JsonObject): Relation => {
  const table = text(node["table_name"])
  const schema = text(node["schema_name"])
  const catalog = text(node["catalog_name"])
  const alias = (text(node["alias"]) || table).toLowerCase()
  const cte = schema === "" && catalog === "" ? ctx.ctes.get(table.toLowerCase()) : undefined
  const aliases = list(node["column_name_alias"])
  if (cte !== undefined) {
    const columns = renamed(cte.columns, aliases)
    if (columns !== undefined) return known(alias, `cte ${table}`, columns)
    return { alias, label: `cte ${table}`, columns: undefined, columnOrigin: (column) => ({ reads: [], unresolved: [`cte ${table}: ${cte.columnsUnresolved.join("; ")} (column ${column})`] }) }
  }
  const resolved = ctx.resolve({ ...(catalog === "" ? {} : { catalog }), ...(schema === "" ? {} : { schema }), table })
  const source = (column: string): ColumnSource => ({ kind: resolved.kind, relation: resolved.name, column })
  if (resolved.columns === undefined || aliases.length > 0) return opaque(alias, resolved.name, source)
  return known(alias, resolved.name, resolved.columns.map((name) => ({ name, origin: { reads: [source(name)], unresolved: [] } })))
}

const fromClause = (ctx: Context, node: Json | undefined): FromResult => {
  if (!isObject(node)) return { relations: [], conditions: [], unresolved: [] }
  switch (text(node["type"])) {
    case "EMPTY":
      return { relations: [], conditions: [], unresolved: [] }
    case "BASE_TABLE":
      return { relations: [baseTable(ctx, node)], conditions: [], unresolved: [] }
    case "SUBQUERY": {
      const sub = analyzeStatement(ctx, node["subquery"])
      const alias = text(node["alias"]).toLowerCase() || "subquery"
      const columns = renamed(sub.columns, list(node["column_name_alias"]))
      const relation: Relation =
        columns !== undefined
          ? known(alias, `subquery ${alias}`, columns)
          : { alias, label: `subquery ${alias}`, columns: undefined, columnOrigin: (c) => ({ reads: [], unresolved: [`subquery ${alias}: ${sub.columnsUnresolved.join("; ")} (column ${c})`] }) }
      return { relations: [relation], conditions: [() => sub.references], unresolved: [] }
    }
    case "TABLE_FUNCTION": {
      const fn = isObject(node["function"]) ? text(node["function"]["function_name"]) : "function"
      const alias = (text(node["alias"]) || fn).toLowerCase()
      return { relations: [opaque(alias, `${fn}()`, (column) => ({ kind: "function", relation: `${fn}()`, column }))], conditions: [], unresolved: [] }
    }
    case "JOIN": {
      const left = fromClause(ctx, node["left"])
      const right = fromClause(ctx, node["right"])
      const using = list(node["using_columns"]).map(text)
      const condition = node["condition"]
      const hidden = new Set(using.map((u) => u.toLowerCase()))
      const rightRelations = using.length === 0 ? right.relations : right.relations.map((r) => ({ ...r, hiddenFromStar: hidden }))
      const usingReads = (relations: ReadonlyArray<Relation>) =>
        mergeOrigins(
          using.flatMap((u) => {
            const l = unqualifiedColumn(left.relations, u, [])
            const r = unqualifiedColumn(right.relations, u, [])
            return [l, r]
          })
        )
      return {
        relations: [...left.relations, ...rightRelations],
        conditions: [...left.conditions, ...right.conditions, usingReads, (relations) => expressionOrigin(ctx, condition, relations, [])],
        unresolved: [...left.unresolved, ...right.unresolved]
      }
    }
    default:
      return { relations: [], conditions: [], unresolved: [`a ${text(node["type"]).toLowerCase() || "table"} in FROM`] }
  }
}

/** Every column an expression reads; a subquery or lambda inside it is unresolved. */
const expressionOrigin = (ctx: Context, expr: Json | undefined, relations: ReadonlyArray<Relation>, lateral: ReadonlyArray<NamedColumn>): Origin => {
  const parts: Array<Origin> = []
  const walk = (node: Json | undefined): void => {
    if (Array.isArray(node)) return node.forEach(walk)
    if (!isObject(node)) return
    const cls = text(node["class"])
    if (cls === "COLUMN_REF") return void parts.push(columnRef(list(node["column_names"]).map(text), relations, lateral))
    if (cls === "SUBQUERY") return void parts.push({ reads: [], unresolved: ["a subquery inside an expression"] })
    if (cls === "LAMBDA") return void parts.push({ reads: [], unresolved: ["a lambda inside an expression"] })
    if (cls === "STAR") return void parts.push(starOrigin(node, relations))
    for (const key in node) walk(node[key])
  }
  walk(expr)
  return mergeOrigins(parts)
}

const columnRef = (names: ReadonlyArray<string>, relations: ReadonlyArray<Relation>, lateral: ReadonlyArray<NamedColumn>): Origin => {
  if (names.length === 1) return unqualifiedColumn(relations, names[0]!, lateral)
  // `t.c`, `schema.t.c`: the qualifier is the relation; else `c.field` reads struct column c.
  for (let i = names.length - 2; i >= 0; i--) {
    const relation = relationNamed(relations, names[i]!)
    if (relation !== undefined) return qualifiedColumn(relation, names[i + 1]!)
  }
  return unqualifiedColumn(relations, names[0]!, lateral)
}

/** The relations a `*` or `rel.*` covers. */
const starRelations = (node: JsonObject, relations: ReadonlyArray<Relation>) => {
  const qualifier = text(node["relation_name"])
  if (qualifier === "") return relations
  const r = relationNamed(relations, qualifier)
  return r === undefined ? undefined : [r]
}

const starExpansion = (node: JsonObject, relations: ReadonlyArray<Relation>): { readonly columns?: ReadonlyArray<NamedColumn>; readonly reason?: string } => {
  if (node["columns"] === true || node["expr"] !== null || list(node["replace_list"]).length > 0 || list(node["rename_list"]).length > 0) {
    return { reason: "a COLUMNS(), REPLACE or RENAME star" }
  }
  const covered = starRelations(node, relations)
  if (covered === undefined) return { reason: `* of unknown relation ${text(node["relation_name"])}` }
  const exclude = new Set(list(node["exclude_list"]).map((c) => text(c).toLowerCase()))
  // `* EXCLUDE (e.x)`: the column of that relation only.
  const qualified = list(node["qualified_exclude_list"]).flatMap((q) => (isObject(q) ? [`${text(q["table"]).toLowerCase()}.${text(q["column"]).toLowerCase()}`] : []))
  const columns = starColumns(covered, exclude, new Set(qualified))
  if (columns === undefined) {
    const unknown = covered.filter((r) => r.columns === undefined).map((r) => r.label)
    return { reason: `SELECT * over ${unknown.join(", ")}, whose columns are not known` }
  }
  return { columns }
}

const starOrigin = (node: JsonObject, relations: ReadonlyArray<Relation>): Origin => {
  const expanded = starExpansion(node, relations)
  if (expanded.columns === undefined) return { reads: [], unresolved: [expanded.reason ?? "a star"] }
  return mergeOrigins(expanded.columns.map((c) => c.origin))
}

const selectNode = (outer: Context, node: JsonObject): QueryLineage => {
  const ctx = withCtes(outer, node)
  const from = fromClause(ctx, node["from_table"])
  const relations = from.relations
  const output: Array<NamedColumn> = []
  const unknownColumns: Array<string> = [...from.unresolved]
  for (const item of list(node["select_list"])) {
    if (!isObject(item)) continue
    if (text(item["class"]) === "STAR") {
      const expanded = starExpansion(item, relations)
      if (expanded.columns === undefined) unknownColumns.push(expanded.reason ?? "a star")
      else output.push(...expanded.columns)
      continue
    }
    const names = list(item["column_names"])
    const name = text(item["alias"]) || (text(item["class"]) === "COLUMN_REF" ? text(names[names.length - 1]) : "")
    const origin = expressionOrigin(ctx, item, relations, output)
    if (name === "") unknownColumns.push("an expression without an alias (DuckDB names it after its text)")
    else output.push({ name, origin })
  }
  const clauses = [node["where_clause"], node["group_expressions"], node["having"], node["qualify"], node["modifiers"]]
  const references = mergeOrigins([
    ...from.conditions.map((c) => c(relations)),
    ...output.map((c) => c.origin),
    ...clauses.map((c) => expressionOrigin(ctx, c, relations, output)),
    ...(unknownColumns.length > 0 ? [{ reads: [], unresolved: unknownColumns }] : [])
  ])
  return { columns: unknownColumns.length > 0 ? undefined : output, columnsUnresolved: unknownColumns, references }
}

const withCtes = (outer: Context, node: JsonObject): Context => {
  const entries = isObject(node["cte_map"]) ? list(node["cte_map"]["map"]) : []
  if (entries.length === 0) return outer
  const ctes = new Map(outer.ctes)
  for (const entry of entries) {
    if (!isObject(entry) || !isObject(entry["value"])) continue
    const name = text(entry["key"]).toLowerCase()
    const value = entry["value"]
    const lineage = analyzeStatement({ ...outer, ctes }, value["query"])
    ctes.set(name, { ...lineage, columns: renamed(lineage.columns, list(value["aliases"])) })
  }
  return { ...outer, ctes }
}

const queryNode = (ctx: Context, node: Json | undefined): QueryLineage => {
  if (!isObject(node)) return unresolvedQuery("an empty query")
  switch (text(node["type"])) {
    case "SELECT_NODE":
      return selectNode(ctx, node)
    case "SET_OPERATION_NODE": {
      const inner = withCtes(ctx, node)
      const left = queryNode(inner, node["left"])
      const right = queryNode(inner, node["right"])
      const references = mergeOrigins([left.references, right.references])
      const byName = text(node["setop_type"]).includes("BY_NAME")
      if (left.columns === undefined || right.columns === undefined || byName || left.columns.length !== right.columns.length) {
        const reasons = [...left.columnsUnresolved, ...right.columnsUnresolved]
        return { columns: undefined, columnsUnresolved: reasons.length > 0 ? reasons : ["a set operation whose sides do not line up by position"], references }
      }
      const rightColumns = right.columns
      return { columns: left.columns.map((c, i) => ({ name: c.name, origin: mergeOrigins([c.origin, rightColumns[i]!.origin]) })), columnsUnresolved: [], references }
    }
    default:
      return unresolvedQuery(`a ${text(node["type"]).toLowerCase().replace(/_node$/, "")} query`)
  }
}

/** A `{ node }` statement or subquery object. */
const analyzeStatement = (ctx: Context, statement: Json | undefined): QueryLineage =>
  queryNode(ctx, isObject(statement) ? statement["node"] : undefined)

/** The lineage of one model's SQL from its `json_serialize_sql` text; a parse error is unresolved. */
export const analyzeQuery = (serialized: string, resolve: TableResolver): QueryLineage => {
  let parsed: Json
  try {
    parsed = JSON.parse(serialized) as Json
  } catch {
    return unresolvedQuery("DuckDB's parser gave no AST")
  }
  if (!isObject(parsed) || parsed["error"] === true) return unresolvedQuery(`DuckDB cannot parse it${isObject(parsed) ? `: ${text(parsed["error_message"])}` : ""}`)
  const statements = list(parsed["statements"])
  if (statements.length !== 1) return unresolvedQuery("not exactly one statement")
  return analyzeStatement({ resolve, ctes: new Map() }, statements[0])
}
