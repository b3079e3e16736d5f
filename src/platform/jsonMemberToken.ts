/**
 * The exact source text of one member's value in JSON text that JSON.parse has already accepted:
 * JSON.parse keeps no number's text (2^53 + 1, 1e400, 1.50 and -0 come back as other numbers), and
 * Node 20's reviver gets no `context.source`. Not a parser: it only skips values, relying on the
 * text being valid JSON, and it does not recurse (any depth).
 */

const WHITESPACE = /[ \t\n\r]*/y
// The next character that can open, close or quote something; all else inside a container is skipped.
const STRUCTURAL = /["[\]{}]/g
// A scalar (number or literal) ends at the first delimiter after it.
const SCALAR_END = /[,\]} \t\n\r]|$/g

const skipWhitespace = (text: string, at: number): number => {
  WHITESPACE.lastIndex = at
  WHITESPACE.exec(text)
  return WHITESPACE.lastIndex
}

// Every scan stops at the end of the text: on text that is not JSON it ends, with a meaningless answer.

/** The index just past the string whose opening quote is at `at`. */
const stringEnd = (text: string, at: number): number => {
  for (let quote = text.indexOf('"', at + 1); ; quote = text.indexOf('"', quote + 1)) {
    if (quote === -1) return text.length
    let backslashes = 0
    while (text.charCodeAt(quote - 1 - backslashes) === 92) backslashes++
    if (backslashes % 2 === 0) return quote + 1
  }
}

/** The index just past the value that starts at `at`. */
const valueEnd = (text: string, at: number): number => {
  const first = text[at]
  if (first === '"') return stringEnd(text, at)
  if (first !== "{" && first !== "[") {
    SCALAR_END.lastIndex = at
    return SCALAR_END.exec(text)!.index
  }
  let depth = 0
  let i = at
  for (;;) {
    STRUCTURAL.lastIndex = i
    const found = STRUCTURAL.exec(text)
    if (found === null) return text.length
    const c = found[0]
    if (c === '"') i = stringEnd(text, found.index)
    else {
      depth += c === "{" || c === "[" ? 1 : -1
      i = found.index + 1
      if (depth === 0) return i
    }
  }
}

/**
 * The value text of member `key` of the object at the top of `text` (the last one when repeated,
 * as JSON.parse keeps the last), or undefined when the top is not an object or has no such member.
 * `text` must be valid JSON (JSON.parse accepted it); on anything else the answer is meaningless.
 */
export const topLevelMemberToken = (text: string, key: string): string | undefined => {
  let i = skipWhitespace(text, 0)
  if (text[i] !== "{") return undefined
  let found: string | undefined
  i = skipWhitespace(text, i + 1)
  while (text[i] === '"') {
    const keyEnd = stringEnd(text, i)
    const raw = text.slice(i + 1, keyEnd - 1)
    // A key may be spelled with escapes (`"\u0069d"` is `"id"`).
    const matches = raw.includes("\\") ? JSON.parse(text.slice(i, keyEnd)) === key : raw === key
    const start = skipWhitespace(text, skipWhitespace(text, keyEnd) + 1)
    const end = valueEnd(text, start)
    if (matches) found = text.slice(start, end)
    i = skipWhitespace(text, end)
    if (text[i] !== ",") break
    i = skipWhitespace(text, i + 1)
  }
  return found
}
