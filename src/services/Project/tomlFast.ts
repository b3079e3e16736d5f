/**
 * A conservative reader of the TOML that sidecars and contracts are written in: what smol-toml's
 * `parse` gives, for a small subset of the language, or undefined for anything outside it (the
 * caller then parses with smol-toml, which stays the authority for every other form and every
 * error). smol-toml cost the read-ahead worker about a third of its CPU in a cold compile.
 *
 * The subset, line by line (LF only; any CR, BOM or other form declines):
 * - blank lines and `#` comments;
 * - `[name]` and `[[name]]` headers of one bare key, written exactly so (no dots, no spaces);
 * - `key = value` with one bare key (`A-Za-z0-9_-`), then spaces and an optional comment;
 * - values: basic strings without escapes, literal strings (one line each), `true`, `false`,
 *   decimal integers of at most 15 digits (no `+`, no `-0`, no leading zeros), and arrays of those
 *   (over several lines too, a trailing comma allowed, no comments inside).
 * A key defined twice, a table defined twice or over a key, and `__proto__` decline. Tables are
 * plain objects; a property test holds the result to smol-toml's.
 */

const enum C {
  Tab = 9,
  Lf = 10,
  Space = 32,
  Quote = 34,
  Hash = 35,
  Apostrophe = 39,
  Comma = 44,
  Minus = 45,
  Zero = 48,
  Nine = 57,
  Equals = 61,
  Open = 91,
  Close = 93,
  Del = 127
}

/** Thrown (and caught in `fastToml`) when the text leaves the subset. */
const outside: unique symbol = Symbol("outside the fast TOML subset")

const isKeyChar = (c: number) => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= C.Zero && c <= C.Nine) || c === 95 || c === C.Minus
/** A character TOML forbids inside strings and comments (tab is allowed). */
const isControl = (c: number) => (c < C.Space && c !== C.Tab) || c === C.Del

type Table = Record<string, unknown>

const makeReader = () => {
  let s = ""
  let i = 0
  const fail = (): never => {
    throw outside
  }
  const at = (j: number) => (j < s.length ? s.charCodeAt(j) : -1)
  const skipBlanks = () => {
    for (let c = at(i); c === C.Space || c === C.Tab; c = at(++i));
  }
  /** After a value or header: blanks, an optional comment, then the end of the line (consumed) or of the text. */
  const endOfLine = () => {
    skipBlanks()
    let c = at(i)
    if (c === C.Hash) {
      for (c = at(++i); c !== C.Lf && c !== -1; c = at(++i)) if (isControl(c)) fail()
    }
    if (c === C.Lf) i++
    else if (c !== -1) fail()
  }
  const bareKey = (): string => {
    const start = i
    while (isKeyChar(at(i))) i++
    if (i === start) fail()
    const key = s.slice(start, i)
    if (key === "__proto__") fail()
    return key
  }
  const stringUntil = (quote: number): string => {
    const start = ++i
    for (let c = at(i); c !== quote; c = at(++i)) {
      if (c === -1 || isControl(c) || (quote === C.Quote && c === 92)) fail()
    }
    // A multi-line string (`"""`) reads as `""` followed by a quote, which no line may hold.
    return s.slice(start, i++)
  }
  /** A character that may follow a scalar: blanks, a comma, `]`, a comment, the end of the line or text. */
  const endsScalar = (c: number) => c === C.Space || c === C.Tab || c === C.Comma || c === C.Close || c === C.Hash || c === C.Lf || c === -1
  const word = (w: string): boolean => {
    if (!s.startsWith(w, i) || !endsScalar(at(i + w.length))) return false
    i += w.length
    return true
  }
  const integer = (): number => {
    const start = i
    if (at(i) === C.Minus) i++
    const digits = i
    while (at(i) >= C.Zero && at(i) <= C.Nine) i++
    const count = i - digits
    // No digits, leading zeros (and `-0`), more than 15 digits, or a float, date or `_`-separated number.
    if (count === 0 || count > 15 || (at(digits) === C.Zero && (count > 1 || digits > start)) || !endsScalar(at(i))) fail()
    return Number(s.slice(start, i))
  }
  const scalar = (): unknown => {
    const c = at(i)
    if (c === C.Quote || c === C.Apostrophe) return stringUntil(c)
    if (c === 116 && word("true")) return true
    if (c === 102 && word("false")) return false
    if (c === C.Minus || (c >= C.Zero && c <= C.Nine)) return integer()
    return fail()
  }
  const skipArrayBlanks = () => {
    for (let c = at(i); c === C.Space || c === C.Tab || c === C.Lf; c = at(++i));
  }
  const value = (): unknown => {
    if (at(i) !== C.Open) return scalar()
    i++
    const items: Array<unknown> = []
    for (;;) {
      skipArrayBlanks()
      if (at(i) === C.Close) break
      items.push(scalar())
      skipArrayBlanks()
      const c = at(i)
      if (c === C.Comma) i++
      else if (c !== C.Close) fail()
    }
    i++
    return items
  }

  return (text: string): Table | undefined => {
    s = text
    i = 0
    const root: Table = {}
    /** Keys of `root` made by `[[name]]` headers: the only ones a header may name again. */
    const arrays = new Set<string>()
    let table = root
    try {
      while (i < s.length) {
        skipBlanks()
        const c = at(i)
        if (c === C.Lf || c === C.Hash || c === -1) {
          endOfLine()
          continue
        }
        if (c === C.Open) {
          const many = at(i + 1) === C.Open
          i += many ? 2 : 1
          const name = bareKey()
          if (at(i) !== C.Close || (many && at(i + 1) !== C.Close)) fail()
          i += many ? 2 : 1
          endOfLine()
          const before = Object.prototype.hasOwnProperty.call(root, name)
          table = {}
          if (!many) {
            if (before) fail()
            root[name] = table
          } else if (!before) {
            arrays.add(name)
            root[name] = [table]
          } else if (arrays.has(name)) (root[name] as Array<Table>).push(table)
          else fail()
          continue
        }
        const key = bareKey()
        skipBlanks()
        if (at(i) !== C.Equals) fail()
        i++
        skipBlanks()
        if (Object.prototype.hasOwnProperty.call(table, key)) fail()
        table[key] = value()
        endOfLine()
      }
      return root
    } catch (e) {
      if (e === outside) return undefined
      throw e
    } finally {
      s = ""
    }
  }
}

const reader = makeReader()

/** `text` as smol-toml's `parse` reads it, where the text is in this reader's subset; undefined otherwise. */
export const fastToml = (text: string): Table | undefined => (text.includes("\r") || text.charCodeAt(0) === 0xfeff ? undefined : reader(text))
