/**
 * A conservative pure-TypeScript reading of a model's SQL: the tables it reads, for the common
 * SELECT grammar (CTEs, joins, subqueries, set operations, window functions, table functions),
 * without loading DuckDB. It answers only when it recognises the whole statement as one DuckDB
 * also accepts, and then exactly what DuckDB's parser gives (`sqlRefs.ts`); for anything else
 * it says "unsure" (undefined) and DuckDB parses the text as before, error messages included.
 * DuckDB stays the reference: a property test compares the two on generated SQL.
 */
import { Kind, keywordCategory, type Token, tokenize } from "./sqlTokens"
import type { TableRef } from "./sqlRefs"

/** Thrown inside the parser when the text leaves the grammar it knows. */
const unsure: unique symbol = Symbol("unsure")

/** Type names accepted after `::` and in CAST; those marked take `(n)` / `(p, s)`. */
const typeNames = new Map<string, number>([
  ["boolean", 0], ["bool", 0], ["tinyint", 0], ["smallint", 0], ["integer", 0], ["int", 0], ["bigint", 0],
  ["hugeint", 0], ["utinyint", 0], ["usmallint", 0], ["uinteger", 0], ["ubigint", 0], ["real", 0], ["float", 0],
  ["double", 0], ["decimal", 2], ["numeric", 2], ["varchar", 1], ["text", 0], ["date", 0], ["time", 0],
  ["timestamp", 0], ["timestamptz", 0], ["blob", 0], ["uuid", 0], ["json", 0], ["interval", 0]
])
/** Units after `INTERVAL 'n'` / `INTERVAL n` and in `extract(unit FROM …)`. */
const intervalUnits = new Set(["year", "years", "month", "months", "week", "weeks", "day", "days", "hour", "hours", "minute", "minutes", "second", "seconds"])
/** Words that may precede a string to make a typed literal (`DATE '2024-01-01'`). */
const typedLiterals = new Set(["date", "timestamp", "time"])
/** DuckDB's own window functions and the argument counts always accepted with OVER. */
const windowFunctionArguments = new Map<string, readonly [number, number]>([
  ["row_number", [0, 0]], ["rank", [0, 0]], ["dense_rank", [0, 0]], ["rank_dense", [0, 0]], ["percent_rank", [0, 0]],
  ["cume_dist", [0, 0]], ["ntile", [1, 1]], ["lag", [1, 3]], ["lead", [1, 3]], ["first_value", [1, 1]], ["first", [1, 1]],
  ["last_value", [1, 1]], ["last", [1, 1]], ["nth_value", [2, 2]], ["fill", [1, 1]], ["any_value", [1, 1]]
])
const comparison = new Set(["=", "<", ">", "<=", ">=", "<>", "!="])

// Binding powers, after DuckDB's grammar (PostgreSQL's precedence table).
const OR = 1
const AND = 2
const NOT = 3
const IS = 4
const COMPARE = 5
const LIKE = 6
const CONCAT = 7
const ADD = 8
const MUL = 9
const UNARY = 11

interface Found {
  readonly tables: Array<TableRef>
  readonly ctes: Set<string>
}

const fail = (): never => {
  throw unsure
}

const parseStatement = (tokens: ReadonlyArray<Token>, found: Found): void => {
  let at = 0
  let depth = 0
  const peek = (offset = 0) => tokens[at + offset]!
  const next = () => tokens[at++]!
  const isWord = (word: string, offset = 0) => {
    const t = tokens[at + offset]!
    return t.kind === Kind.Word && t.lower === word
  }
  const isSymbol = (symbol: string, offset = 0) => {
    const t = tokens[at + offset]!
    return t.kind === Kind.Symbol && t.text === symbol
  }
  const acceptWord = (word: string) => (isWord(word) ? (at++, true) : false)
  const acceptSymbol = (symbol: string) => (isSymbol(symbol) ? (at++, true) : false)
  const expectWord = (word: string) => {
    if (!acceptWord(word)) fail()
  }
  const expectSymbol = (symbol: string) => {
    if (!acceptSymbol(symbol)) fail()
  }
  const enter = () => {
    if (++depth > 64) fail() // deep nesting: DuckDB decides (it has its own depth limits)
  }

  /** A column id: a plain or quoted identifier, an unreserved or column-name keyword. */
  const isColId = (t: Token) => {
    if (t.kind === Kind.Quoted) return true
    if (t.kind !== Kind.Word) return false
    const category = keywordCategory(t.lower)
    return category === undefined || category === "unreserved" || category === "column_name"
  }
  const colId = (): string => {
    const t = next()
    if (!isColId(t)) fail()
    return t.text
  }
  /** A name after a dot or `AS`: any word (keywords included) or a quoted identifier. */
  const label = (): string => {
    const t = next()
    if (t.kind !== Kind.Word && t.kind !== Kind.Quoted) fail()
    return t.text
  }
  /** A bare column alias: DuckDB takes only a plain identifier there. */
  const isBareAlias = (t: Token) =>
    t.kind === Kind.Quoted || (t.kind === Kind.Word && keywordCategory(t.lower) === undefined)

  const commaList = (item: () => void) => {
    do item()
    while (acceptSymbol(","))
  }
  const nameList = () => {
    expectSymbol("(")
    commaList(colId)
    expectSymbol(")")
  }

  const typeName = () => {
    const t = next()
    if (t.kind !== Kind.Word) fail()
    const params = typeNames.get(t.lower)
    if (params === undefined) fail()
    if (params! > 0 && acceptSymbol("(")) {
      let count = 0
      do {
        if (next().kind !== Kind.Number) fail()
        count++
      } while (acceptSymbol(","))
      if (count > params!) fail()
      expectSymbol(")")
    }
  }

  const sortList = () => {
    commaList(() => {
      expression(0)
      if (!acceptWord("asc")) acceptWord("desc")
      if (acceptWord("nulls") && !acceptWord("first")) expectWord("last")
    })
  }

  const frameBound = (start: boolean) => {
    if (acceptWord("current")) return expectWord("row")
    if (acceptWord("unbounded")) return expectWord(start ? "preceding" : "following")
    expression(ADD)
    expectWord(start ? "preceding" : "following")
  }

  const windowSpec = () => {
    expectSymbol("(")
    if (acceptWord("partition")) {
      expectWord("by")
      commaList(() => expression(0))
    }
    if (acceptWord("order")) {
      expectWord("by")
      sortList()
    }
    if (isWord("rows") || isWord("range")) {
      at++
      if (acceptWord("between")) {
        frameBound(true)
        expectWord("and")
        frameBound(false)
      } else frameBound(true)
    }
    expectSymbol(")")
  }

  /** After `name(`: the arguments, then FILTER and OVER; keyword-named functions take neither `*` nor DISTINCT. */
  const functionCall = (name: string, plain: boolean, minArgs: number, maxArgs: number) => {
    let count = 0
    let star = false
    let distinct = false
    if (acceptSymbol("*")) {
      if (!plain) fail()
      star = true
    } else if (!isSymbol(")")) {
      distinct = acceptWord("distinct")
      if (distinct && !plain) fail()
      commaList(() => {
        expression(0)
        count++
      })
    }
    expectSymbol(")")
    if (count < minArgs || count > maxArgs) fail()
    const filter = acceptWord("filter")
    if (filter) {
      expectSymbol("(")
      expectWord("where")
      expression(0)
      expectSymbol(")")
    }
    if (acceptWord("over")) {
      // DuckDB checks window functions while transforming: keep to the forms it always takes.
      if (filter || distinct) fail()
      const args = windowFunctionArguments.get(name)
      if (args !== undefined && (star || count < args[0] || count > args[1])) fail()
      windowSpec()
    }
  }

  const primary = (minPower: number): void => {
    const t = next()
    if (t.kind === Kind.Number || t.kind === Kind.String) return
    if (t.kind === Kind.Symbol) {
      if (t.text === "-" || t.text === "+") return expression(UNARY)
      if (t.text !== "(") fail()
      enter()
      if (isWord("select") || isWord("with")) selectStatement()
      else {
        expression(0)
        if (isSymbol(",")) fail() // row constructors: DuckDB decides
      }
      expectSymbol(")")
      depth--
      return
    }
    if (t.kind === Kind.Quoted) return columnTail()
    if (t.kind !== Kind.Word) fail()
    const category = keywordCategory(t.lower)
    const following = peek()
    switch (t.lower) {
      case "null":
      case "true":
      case "false":
        return
      case "not":
        if (minPower > NOT) fail()
        return expression(NOT)
      case "case":
        return caseExpression()
      case "cast":
      case "try_cast":
        expectSymbol("(")
        expression(0)
        expectWord("as")
        typeName()
        return expectSymbol(")")
      case "exists":
        if (!isSymbol("(") || !(isWord("select", 1) || isWord("with", 1))) break
        at++
        enter()
        selectStatement()
        expectSymbol(")")
        depth--
        return
      case "interval":
        if (following.kind === Kind.String) {
          at++
          if (peek().kind === Kind.Word && intervalUnits.has(peek().lower)) at++
          return
        }
        if (following.kind === Kind.Number && peek(1).kind === Kind.Word && intervalUnits.has(peek(1).lower)) {
          at += 2
          return
        }
        break
      case "coalesce":
        if (!acceptSymbol("(")) break
        return functionCall(t.lower, false, 1, Infinity)
      case "nullif":
        if (!acceptSymbol("(")) break
        return functionCall(t.lower, false, 2, 2)
      case "left":
      case "right":
        expectSymbol("(")
        return functionCall(t.lower, false, 0, Infinity)
      case "extract":
        if (!acceptSymbol("(")) break
        if (next().kind !== Kind.Word || !intervalUnits.has(tokens[at - 1]!.lower)) fail()
        expectWord("from")
        expression(0)
        return expectSymbol(")")
    }
    if (following.kind === Kind.String) {
      if (!typedLiterals.has(t.lower)) fail()
      at++
      return
    }
    if (category === "column_name") {
      // As a column it is a plain name; with `(` it is special syntax DuckDB decides.
      if (isSymbol("(")) fail()
      return columnTail()
    }
    if (category !== undefined && category !== "unreserved") fail()
    if (isSymbol("(")) {
      if (t.lower === "if" || t.lower === "operator") fail()
      at++
      enter()
      functionCall(t.lower, true, 0, Infinity)
      depth--
      return
    }
    columnTail()
  }

  /** After a column's first name: `.field` parts (a method call is left to DuckDB). */
  const columnTail = () => {
    while (acceptSymbol(".")) {
      label()
      if (isSymbol("(")) fail()
    }
  }

  const caseExpression = () => {
    enter()
    if (!isWord("when")) expression(0)
    expectWord("when")
    do {
      expression(0)
      expectWord("then")
      expression(0)
    } while (acceptWord("when"))
    if (acceptWord("else")) expression(0)
    expectWord("end")
    depth--
  }

  /** The operator at the cursor and its binding power, or undefined when the expression ends. */
  const infix = (): { power: number; nonAssoc: boolean } | undefined => {
    const t = peek()
    if (t.kind === Kind.Symbol) {
      if (comparison.has(t.text)) return { power: COMPARE, nonAssoc: true }
      if (t.text === "||") return { power: CONCAT, nonAssoc: false }
      if (t.text === "+" || t.text === "-") return { power: ADD, nonAssoc: false }
      if (t.text === "*" || t.text === "/" || t.text === "%") return { power: MUL, nonAssoc: false }
      return undefined
    }
    if (t.kind !== Kind.Word) return undefined
    switch (t.lower) {
      case "or":
        return { power: OR, nonAssoc: false }
      case "and":
        return { power: AND, nonAssoc: false }
      case "is":
        return { power: IS, nonAssoc: true }
      case "between":
      case "in":
      case "like":
      case "ilike":
        return { power: LIKE, nonAssoc: true }
      case "not":
        return isWord("between", 1) || isWord("in", 1) || isWord("like", 1) || isWord("ilike", 1)
          ? { power: LIKE, nonAssoc: true }
          : undefined
    }
    return undefined
  }

  /** Pratt loop: operators binding at least `minPower`; chained non-associative ones are unsure. */
  const expression = (minPower: number): void => {
    enter()
    primary(minPower)
    while (acceptSymbol("::")) typeName()
    let last = Infinity
    for (;;) {
      const op = infix()
      if (op === undefined || op.power < minPower) break
      // A postfix form followed by a tighter operator, or a non-associative chain: DuckDB decides.
      if (op.power > last || (op.nonAssoc && op.power === last)) fail()
      const t = next()
      if (t.kind === Kind.Word && t.lower !== "and" && t.lower !== "or") {
        if (t.lower === "is") {
          acceptWord("not")
          expectWord("null")
        } else {
          if (t.lower === "not") next()
          const word = tokens[at - 1]!.lower
          if (word === "between") {
            expression(CONCAT)
            expectWord("and")
            expression(CONCAT)
          } else if (word === "in") {
            expectSymbol("(")
            if (isWord("select") || isWord("with")) selectStatement()
            else commaList(() => expression(0))
            expectSymbol(")")
          } else expression(CONCAT)
        }
      } else expression(op.power + 1)
      last = op.power
    }
    depth--
  }

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
      depth--
      return tableAlias()
    }
    if (acceptWord("lateral")) {
      expectSymbol("(")
      enter()
      selectStatement()
      expectSymbol(")")
      depth--
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
        at++
        enter()
        if (!isSymbol(")")) commaList(() => expression(0))
        expectSymbol(")")
        depth--
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
        at += 3
        return
      }
      expression(0)
      if (acceptWord("as")) label()
      else if (isBareAlias(peek())) at++
    })
  }

  const simpleSelect = () => {
    if (acceptSymbol("(")) {
      enter()
      selectStatement()
      expectSymbol(")")
      depth--
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
      depth--
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

  selectStatement()
  while (acceptSymbol(";")) {}
  if (peek().kind !== Kind.End) fail()
}

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
  return [...seen.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, v]) => v.ref)
}
