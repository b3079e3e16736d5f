import type { Cursor } from "./sqlCursor"
import { fail, typeNames, intervalUnits, typedLiterals, windowFunctionArguments, comparison, OR, AND, NOT, IS, COMPARE, LIKE, CONCAT, ADD, MUL, UNARY } from "./sqlGrammar"
import { Kind, keywordCategory } from "./sqlTokens"

/**
 * Expressions of the fast SQL reader: operators by binding power, function calls, windows, CASE,
 * casts, and subqueries (read by `selectStatement`, which the statement grammar passes in).
 */
export const makeExpressions = (c: Cursor, selectStatement: () => void) => {
  const { peek, next, isWord, isSymbol, acceptWord, acceptSymbol, expectWord, expectSymbol, enter, label, commaList, leave } = c
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
      c.at++
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
      leave()
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
        c.at++
        enter()
        selectStatement()
        expectSymbol(")")
        leave()
        return
      case "interval":
        if (following.kind === Kind.String) {
          c.at++
          if (peek().kind === Kind.Word && intervalUnits.has(peek().lower)) c.at++
          return
        }
        if (following.kind === Kind.Number && peek(1).kind === Kind.Word && intervalUnits.has(peek(1).lower)) {
          c.at += 2
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
        if (next().kind !== Kind.Word || !intervalUnits.has(c.tokens[c.at - 1]!.lower)) fail()
        expectWord("from")
        expression(0)
        return expectSymbol(")")
    }
    if (following.kind === Kind.String) {
      if (!typedLiterals.has(t.lower)) fail()
      c.at++
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
      c.at++
      enter()
      functionCall(t.lower, true, 0, Infinity)
      leave()
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
    leave()
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
          const word = c.tokens[c.at - 1]!.lower
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
    leave()
  }
  return { sortList, expression }
}
