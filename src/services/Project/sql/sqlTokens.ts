/**
 * A conservative SQL tokenizer for the fast reference extractor (`sqlFast.ts`). It knows the
 * lexical forms a model usually holds and returns undefined ("unsure") for anything else, so
 * DuckDB's own parser decides those texts.
 */

export const enum Kind {
  /** An unquoted word; `lower` is its keyword form. */
  Word,
  /** A `"quoted"` identifier; `text` is unescaped. */
  Quoted,
  String,
  Number,
  /** An operator from the whitelist, or punctuation `( ) , . ;`. */
  Symbol,
  End
}

export interface Token {
  readonly kind: Kind
  /** Words: as written; quoted identifiers: unescaped; symbols: the symbol. */
  readonly text: string
  /** Words: lower case (keyword lookups); others: same as `text`. */
  readonly lower: string
}

/** Keyword categories of DuckDB's parser (`duckdb_keywords()`); a test keeps them equal. */
export type KeywordCategory = "unreserved" | "reserved" | "type_function" | "column_name"

const keywordLists: Record<KeywordCategory, string> = {
  unreserved:
    "abort absolute access action add admin after aggregate also alter always assertion assignment attach attribute backward before begin cache call called cascade cascaded catalog centuries century chain characteristics checkpoint class close cluster comment comments commit committed compression configuration conflict connection constraints content continue conversion copy cost csv cube current cursor cycle data database day days deallocate decade decades declare defaults deferred definer delete delimiter delimiters depends detach dictionary disable discard document domain double drop each enable encoding encrypted enum error escape event exclude excluding exclusive execute explain export export_state extension extensions external family filter first following force forward function functions global grant granted groups handler header hold hour hours identity if ignore immediate immutable implicit import include including increment index indexes inherit inherits inline input insensitive insert install instead invoker isolation json key label language large last leakproof level listen load local location lock locked logged macro mapping match matched materialized maxvalue merge method microsecond microseconds millennia millennium millisecond milliseconds minute minutes minvalue mode month months move name names new next no nothing notify nowait nulls object of off oids old operator option options ordinality others over overriding owned owner parallel parser partial partition partitioned passing password percent persistent plans policy pragma preceding prepare prepared preserve prior privileges procedural procedure program publication quarter quarters quote range read reassign recheck recursive ref referencing refresh reindex relative release rename repeatable replace replica reset respect restart restrict returns revoke role rollback rollup rows rule sample savepoint schema schemas scope scroll search second seconds secret security sequence sequences serializable server session set sets share simple skip snapshot sorted source sql stable standalone start statement statistics stdin stdout storage stored strict strip subscription sysid system tables tablespace target temp template temporary text ties transaction transform trigger truncate trusted type types unbounded uncommitted unencrypted unknown unlisten unlogged until update use user vacuum valid validate validator value variable varying version view views virtual volatile week weeks whitespace within without work wrapper write xml year years yes zone",
  reserved:
    "all analyse analyze and any array as asc asymmetric both case cast check collate column constraint create default deferrable desc describe distinct do else end except false fetch for foreign from group having in initially intersect into lambda lateral leading limit not null offset on only or order pivot pivot_longer pivot_wider placing primary qualify references returning select show some summarize symmetric table then to trailing true union unique unpivot using variadic when where window with",
  type_function:
    "anti asof at authorization binary by collation columns concurrently cross freeze full generated glob ilike inner is isnull join left like map natural notnull outer overlaps positional right semi similar struct tablesample try_cast unpack verbose",
  column_name:
    "between bigint bit boolean char character coalesce dec decimal exists extract float grouping grouping_id inout int integer interval national nchar none nullif numeric out overlay position precision real row setof smallint substring time timestamp treat trim values varchar xmlattributes xmlconcat xmlelement xmlexists xmlforest xmlnamespaces xmlparse xmlpi xmlroot xmlserialize xmltable"
}

const keywords = new Map<string, KeywordCategory>()
for (const [category, list] of Object.entries(keywordLists) as Array<[KeywordCategory, string]>) {
  for (const word of list.split(" ")) keywords.set(word, category)
}

/** The category of a lower-case word, or undefined for a plain identifier. */
export const keywordCategory = (lower: string): KeywordCategory | undefined => keywords.get(lower)

/** Every keyword with its category (for the test that compares them with DuckDB's). */
export const allKeywords = (): ReadonlyMap<string, KeywordCategory> => keywords

/** Operator runs accepted exactly; any other run of operator characters is unsure. */
const operators = new Set(["+", "-", "*", "/", "%", "=", "<", ">", "<=", ">=", "<>", "!=", "||"])

const isSpace = (c: number) => c === 32 || c === 9 || c === 10 || c === 13 || c === 12
const isDigit = (c: number) => c >= 48 && c <= 57
const isWordStart = (c: number) => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95
const isWordPart = (c: number) => isWordStart(c) || isDigit(c)
// PostgreSQL's operator characters: a run of them lexes as one operator.
const operatorChars = new Uint8Array(128)
for (const c of "+-*/<>=~!@#%^&|`?") operatorChars[c.charCodeAt(0)] = 1
const isOperatorChar = (c: number) => c < 128 && operatorChars[c] === 1

/**
 * The character code at `j`, or -1 past the end. `charCodeAt` past the end gives NaN, which
 * deoptimises the tokenizer's integer comparisons: measured at six TurboFan compiles of it per
 * cold compile of 10,000 models (~95 ms of compiler time), against one.
 */
const codeAt = (s: string, j: number): number => (j < s.length ? s.charCodeAt(j) : -1)

/** Tokens of `sql`, ending with an End token; undefined when any lexical form is not one it knows. */
export const tokenize = (sql: string): Array<Token> | undefined => {
  const tokens: Array<Token> = []
  const n = sql.length
  let i = 0
  while (i < n) {
    const c = sql.charCodeAt(i)
    if (isSpace(c)) {
      i++
      continue
    }
    if (c === 45 && codeAt(sql, i + 1) === 45) {
      // `--` comment to the end of the line.
      let j = i + 2
      while (j < n && sql.charCodeAt(j) !== 10 && sql.charCodeAt(j) !== 13) j++
      i = j
      continue
    }
    if (c === 47 && codeAt(sql, i + 1) === 42) {
      // Block comment; nested ones are left to DuckDB.
      const close = sql.indexOf("*/", i + 2)
      if (close === -1 || sql.slice(i + 2, close).includes("/*")) return undefined
      i = close + 2
      continue
    }
    if (isWordStart(c)) {
      let j = i + 1
      while (j < n && isWordPart(sql.charCodeAt(j))) j++
      const next = codeAt(sql, j)
      // `$` in a word, `E'…'`-style prefixed strings, or non-ASCII letters: DuckDB decides.
      if (next === 36 || next === 39 || next > 127) return undefined
      const text = sql.slice(i, j)
      tokens.push({ kind: Kind.Word, text, lower: text.toLowerCase() })
      i = j
      continue
    }
    if (c === 34) {
      let j = i + 1
      let text = ""
      for (;;) {
        const q = sql.indexOf('"', j)
        if (q === -1) return undefined
        text += sql.slice(j, q)
        if (codeAt(sql, q + 1) === 34) {
          text += '"'
          j = q + 2
        } else {
          j = q + 1
          break
        }
      }
      if (text === "") return undefined
      tokens.push({ kind: Kind.Quoted, text, lower: text })
      i = j
      continue
    }
    if (c === 39) {
      let j = i + 1
      for (;;) {
        const q = sql.indexOf("'", j)
        if (q === -1) return undefined
        if (codeAt(sql, q + 1) === 39) j = q + 2
        else {
          j = q + 1
          break
        }
      }
      const text = sql.slice(i, j)
      tokens.push({ kind: Kind.String, text, lower: text })
      i = j
      continue
    }
    if (isDigit(c) || (c === 46 && isDigit(codeAt(sql, i + 1)))) {
      let j = i
      while (isDigit(codeAt(sql, j))) j++
      if (codeAt(sql, j) === 46) {
        j++
        while (isDigit(codeAt(sql, j))) j++
      }
      const e = codeAt(sql, j)
      if (e === 101 || e === 69) {
        let k = j + 1
        const sign = codeAt(sql, k)
        if (sign === 43 || sign === 45) k++
        if (!isDigit(codeAt(sql, k))) return undefined
        while (isDigit(codeAt(sql, k))) k++
        j = k
      }
      // `1abc`, `1_000`, `1.2.3`, `0x1F`: DuckDB decides.
      const after = codeAt(sql, j)
      if (j < n && (isWordPart(after) || after === 46 || after > 127)) return undefined
      const text = sql.slice(i, j)
      tokens.push({ kind: Kind.Number, text, lower: text })
      i = j
      continue
    }
    if (isOperatorChar(c)) {
      let j = i + 1
      while (j < n && isOperatorChar(sql.charCodeAt(j))) j++
      const run = sql.slice(i, j)
      if (!operators.has(run)) return undefined
      tokens.push({ kind: Kind.Symbol, text: run, lower: run })
      i = j
      continue
    }
    if (c === 58) {
      // `::` casts; a lone `:` (prefix aliases, slices, named parameters) is left to DuckDB.
      if (codeAt(sql, i + 1) !== 58 || codeAt(sql, i + 2) === 58) return undefined
      tokens.push({ kind: Kind.Symbol, text: "::", lower: "::" })
      i += 2
      continue
    }
    if (c === 40 || c === 41 || c === 44 || c === 46 || c === 59) {
      const text = sql[i]!
      tokens.push({ kind: Kind.Symbol, text, lower: text })
      i++
      continue
    }
    return undefined
  }
  tokens.push({ kind: Kind.End, text: "", lower: "" })
  return tokens
}
