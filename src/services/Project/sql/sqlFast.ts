/**
 * A conservative pure-TypeScript reading of a model's SQL: the tables it reads, for the common
 * SELECT grammar (CTEs, joins, subqueries, set operations, window functions, table functions),
 * without loading DuckDB. It answers only when it recognises the whole statement as one DuckDB
 * also accepts, and then exactly what DuckDB's parser gives (`sqlRefs.ts`); for anything else
 * it says "unsure" (undefined) and DuckDB parses the text as before, error messages included.
 * DuckDB stays the reference: a property test compares the two on generated SQL.
 */
import { makeCursor } from "./sqlCursor"
import { makeExpressions } from "./sqlExpressions"
import { fail, unsure, ADD } from "./sqlGrammar"
import { Kind, keywordCategory, tokenize, type Token } from "./sqlTokens"
import type { TableRef } from "./sqlRefs"

interface Found {
  readonly tables: Array<TableRef>
  readonly ctes: Set<string>
}

/**
 * The statement grammar over one cursor: WITH, SELECT cores joined by set operations, ORDER BY /
 * LIMIT; tables read go to `found`. Made once and reset for each statement (`read`): making its
 * ~50 closures per statement cost more than reading a short statement.
 */
const makeStatementReader = () => {
  const c = makeCursor([])
  let found: Found = { tables: [], ctes: new Set() }
  const { peek, next, isWord, isSymbol, acceptWord, acceptSymbol, expectWord, expectSymbol, enter, isColId, colId, label, isBareAlias, commaList, nameList, leave } = c
  const { sortList, expression } = makeExpressions(c, () => selectStatement())
  const tableAlias = () => {
    if (acceptWord("as")) colId()
    else if (isColId(peek())) colId()
    else return
    if (isSymbol("(")) nameList()
  }

  const tablePrimary = () => {
    if (acceptSymbol("(")) {
      if (!(isWord("select") || isWord("with"))) fail()
      enter()
      selectStatement()
      expectSymbol(")")
      leave()
      return tableAlias()
    }
    if (acceptWord("lateral")) {
      expectSymbol("(")
      enter()
      selectStatement()
      expectSymbol(")")
      leave()
      return tableAlias()
    }
    const first = next()
    if (first.kind === Kind.Word) {
      const category = keywordCategory(first.lower)
      if (category !== undefined && category !== "unreserved" && category !== "column_name") fail()
      if (isSymbol("(")) {
        // A table function (`range(10)`): its arguments may read tables too.
        if (category !== undefined && category !== "unreserved") fail()
        if (first.lower === "if") fail()
        c.at++
        enter()
        if (!isSymbol(")")) commaList(() => expression(0))
        expectSymbol(")")
        leave()
        return tableAlias()
      }
    } else if (first.kind !== Kind.Quoted) fail()
    const parts = [first.text]
    while (acceptSymbol(".")) parts.push(label())
    if (parts.length > 3 || isSymbol("(")) fail()
    const table = parts[parts.length - 1]!
    const schema = parts.length >= 2 ? parts[parts.length - 2] : undefined
    const catalog = parts.length === 3 ? parts[0] : undefined
    found.tables.push({ catalog, schema, table })
    tableAlias()
  }

  const joinQualifier = () => {
    if (acceptWord("on")) return expression(0)
    expectWord("using")
    nameList()
  }

  const tableReference = () => {
    tablePrimary()
    for (;;) {
      if (acceptWord("cross")) {
        expectWord("join")
        tablePrimary()
      } else if (acceptWord("natural")) {
        if (acceptWord("left") || acceptWord("right") || acceptWord("full")) acceptWord("outer")
        else acceptWord("inner")
        expectWord("join")
        tablePrimary()
      } else if (isWord("join") || isWord("inner") || isWord("left") || isWord("right") || isWord("full")) {
        if (acceptWord("left") || acceptWord("right") || acceptWord("full")) acceptWord("outer")
        else acceptWord("inner")
        expectWord("join")
        tablePrimary()
        joinQualifier()
      } else return
    }
  }

  const targetList = () => {
    commaList(() => {
      if (acceptSymbol("*")) return
      const t = peek()
      if ((t.kind === Kind.Word || t.kind === Kind.Quoted) && isSymbol(".", 1) && isSymbol("*", 2)) {
        if (t.kind === Kind.Word && !isColId(t)) fail()
        c.at += 3
        return
      }
      expression(0)
      if (acceptWord("as")) label()
      else if (isBareAlias(peek())) c.at++
    })
  }

  const simpleSelect = () => {
    if (acceptSymbol("(")) {
      enter()
      selectStatement()
      expectSymbol(")")
      leave()
      return
    }
    expectWord("select")
    if (acceptWord("distinct")) {
      if (acceptWord("on")) {
        expectSymbol("(")
        commaList(() => expression(0))
        expectSymbol(")")
      }
    } else acceptWord("all")
    targetList()
    if (acceptWord("from")) commaList(tableReference)
    if (acceptWord("where")) expression(0)
    if (acceptWord("group")) {
      expectWord("by")
      if (!acceptWord("all")) commaList(() => expression(0))
    }
    if (acceptWord("having")) expression(0)
    if (acceptWord("qualify")) expression(0)
  }

  const withClause = () => {
    // Recursive CTEs have their own transform-time rules: DuckDB decides.
    if (isWord("recursive")) fail()
    const names = new Set<string>()
    commaList(() => {
      const name = colId()
      // DuckDB rejects a repeated CTE name in one WITH.
      if (names.has(name.toLowerCase())) fail()
      names.add(name.toLowerCase())
      found.ctes.add(name.toLowerCase())
      if (isSymbol("(")) nameList()
      expectWord("as")
      if (acceptWord("not")) expectWord("materialized")
      else acceptWord("materialized")
      expectSymbol("(")
      enter()
      selectStatement()
      expectSymbol(")")
      leave()
    })
  }

  function selectStatement(): void {
    if (acceptWord("with")) withClause()
    simpleSelect()
    while (isWord("union") || isWord("except") || isWord("intersect")) {
      const op = next().lower
      if (!acceptWord("all")) acceptWord("distinct")
      if (op === "union" && acceptWord("by")) expectWord("name")
      simpleSelect()
    }
    if (acceptWord("order")) {
      expectWord("by")
      if (acceptWord("all")) {
        if (!acceptWord("asc")) acceptWord("desc")
      } else sortList()
    }
    if (acceptWord("limit")) {
      expression(ADD)
      if (acceptWord("offset")) expression(ADD)
    } else if (acceptWord("offset")) {
      expression(ADD)
      if (acceptWord("limit")) expression(ADD)
    }
  }

  const read = (tokens: ReadonlyArray<Token>, into: Found): void => {
    c.tokens = tokens
    c.at = 0
    c.depth = 0
    found = into
    selectStatement()
    while (acceptSymbol(";")) {}
    if (peek().kind !== Kind.End) fail()
  }
  return read
}

let statementReader: ReturnType<typeof makeStatementReader> | undefined

/** One statement read by the (one) statement reader; tables read go to `found`. */
const parseStatement = (tokens: ReadonlyArray<Token>, found: Found): void => (statementReader ??= makeStatementReader())(tokens, found)

const formatRef = (ref: TableRef) => [ref.catalog, ref.schema, ref.table].filter((p) => p !== undefined).join(".")

/**
 * The distinct tables `sql` reads, sorted as `sqlRefs.ts` sorts them, or undefined when the
 * text is outside the grammar this reader knows (DuckDB must parse it).
 */
export const fastTableReferences = (sql: string): ReadonlyArray<TableRef> | undefined => {
  const tokens = tokenize(sql)
  if (tokens === undefined) return undefined
  const found: Found = { tables: [], ctes: new Set() }
  try {
    parseStatement(tokens, found)
  } catch (e) {
    if (e === unsure) return undefined
    // Stack exhaustion and the like: DuckDB decides.
    return undefined
  }
  const seen = new Map<string, { ref: TableRef; text: string }>()
  for (const ref of found.tables) {
    if (ref.catalog === undefined && ref.schema === undefined && found.ctes.has(ref.table.toLowerCase())) continue
    const text = formatRef(ref)
    const key = text.toLowerCase()
    const before = seen.get(key)
    // Two spellings of one name: which one DuckDB's walk keeps depends on its AST order.
    if (before !== undefined && before.text !== text) return undefined
    seen.set(key, { ref, text })
  }
  // Most models read one table: no entries copied and sorted for it.
  if (seen.size === 1) for (const { ref } of seen.values()) return [ref]
  return [...seen.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, v]) => v.ref)
}
