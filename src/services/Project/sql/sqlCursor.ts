import { fail } from "./sqlGrammar"
import { Kind, keywordCategory, type Token } from "./sqlTokens"

/** A position in the tokens of one statement, with the small reads every grammar rule shares. */
export const makeCursor = (tokens: ReadonlyArray<Token>) => {
  const peek = (offset = 0): Token => c.tokens[c.at + offset]!
  const next = (): Token => c.tokens[c.at++]!
  const isWord = (word: string, offset = 0): boolean => {
    const t = c.tokens[c.at + offset]!
    return t.kind === Kind.Word && t.lower === word
  }
  const isSymbol = (symbol: string, offset = 0): boolean => {
    const t = c.tokens[c.at + offset]!
    return t.kind === Kind.Symbol && t.text === symbol
  }
  const acceptWord = (word: string): boolean => (isWord(word) ? (c.at++, true) : false)
  const acceptSymbol = (symbol: string): boolean => (isSymbol(symbol) ? (c.at++, true) : false)
  const expectWord = (word: string): void => {
    if (!acceptWord(word)) fail()
  }
  const expectSymbol = (symbol: string): void => {
    if (!acceptSymbol(symbol)) fail()
  }
  const enter = (): void => {
    if (++c.depth > 64) fail() // deep nesting: DuckDB decides (it has its own depth limits)
  }

  /** A column id: a plain or quoted identifier, an unreserved or column-name keyword. */
  const isColId = (t: Token): boolean => {
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
  const isBareAlias = (t: Token): boolean =>
    t.kind === Kind.Quoted || (t.kind === Kind.Word && keywordCategory(t.lower) === undefined)

  const commaList = (item: () => void): void => {
    do item()
    while (acceptSymbol(","))
  }
  const nameList = (): void => {
    expectSymbol("(")
    commaList(colId)
    expectSymbol(")")
  }
  const leave = (): void => {
    c.depth--
  }
  // One literal, not state plus Object.assign: that left the cursor in dictionary mode, and every `c.at` a hash lookup.
  // (The rules above spell out their return types: they read `c`, which is declared after them.)
  const c = { tokens, at: 0, depth: 0, peek, next, isWord, isSymbol, acceptWord, acceptSymbol, expectWord, expectSymbol, enter, isColId, colId, label, isBareAlias, commaList, nameList, leave }
  return c
}

export type Cursor = ReturnType<typeof makeCursor>
