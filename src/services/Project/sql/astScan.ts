/**
 * Fast extraction of table references from DuckDB's `json_serialize_sql` text without
 * materialising the whole AST: only BASE_TABLE objects and CTE-map keys are decoded.
 * It relies on the serializer's compact layout (`{"type":"BASE_TABLE",...}`,
 * `"cte_map":{"map":[{"key":...,"value":...}]}`); whenever the text does not look exactly
 * like that it returns undefined so the caller falls back to the full-AST walk.
 */

/** A BASE_TABLE object's fields as serialized (empty string = part not written). */
export interface ScannedTable {
  readonly catalog_name: unknown
  readonly schema_name: unknown
  readonly table_name: unknown
}

export interface ScanResult {
  /** BASE_TABLE objects in document (pre-)order, as the full walk meets them. */
  readonly tables: ReadonlyArray<ScannedTable>
  /** Every CTE name in the statement, lowercased. */
  readonly ctes: ReadonlySet<string>
}

/** A BASE_TABLE object starts `{"type":"BASE_TABLE",`; any other `"BASE_TABLE"` means "fall back". */
const typeKey = '{"type":'
const baseTableValue = '"BASE_TABLE"'
const cteMapKey = '"cte_map"'
const cteMapOpen = '"cte_map":{"map":['
const entryOpen = '{"key":'

const QUOTE = 34
const BACKSLASH = 92
const OPEN_BRACE = 123
const CLOSE_BRACE = 125
const OPEN_BRACKET = 91
const CLOSE_BRACKET = 93
const COMMA = 44

/** Index just past the JSON string whose opening quote is at `start`, or -1. */
const skipString = (text: string, start: number): number => {
  let i = start + 1
  for (;;) {
    const q = text.indexOf('"', i)
    if (q === -1) return -1
    let backslashes = 0
    for (let b = q - 1; b > start && text.charCodeAt(b) === BACKSLASH; b--) backslashes++
    if (backslashes % 2 === 0) return q + 1
    i = q + 1
  }
}

/** Index just past the JSON object/array/string starting at `start`, or -1 when unbalanced. */
export const skipValue = (text: string, start: number): number => {
  const first = text.charCodeAt(start)
  if (first === QUOTE) return skipString(text, start)
  if (first !== OPEN_BRACE && first !== OPEN_BRACKET) return -1
  let depth = 0
  for (let i = start; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === QUOTE) {
      const end = skipString(text, i)
      if (end === -1) return -1
      i = end - 1
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      depth++
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--
      if (depth === 0) return i + 1
    }
  }
  return -1
}

const parseSlice = (text: string, start: number, end: number): unknown => {
  try {
    return JSON.parse(text.slice(start, end)) as unknown
  } catch {
    return undefined
  }
}

/** Keys of one `"cte_map":{"map":[...]}` whose `[` ends at `from`; undefined when the layout differs. */
const scanCteMap = (text: string, from: number, ctes: Set<string>): boolean => {
  let p = from
  if (text.charCodeAt(p) === CLOSE_BRACKET) return true
  for (;;) {
    if (!text.startsWith(entryOpen, p)) return false
    const keyStart = p + entryOpen.length
    const keyEnd = skipString(text, keyStart)
    if (text.charCodeAt(keyStart) !== QUOTE || keyEnd === -1) return false
    const key = parseSlice(text, keyStart, keyEnd)
    if (typeof key !== "string") return false
    ctes.add(key.toLowerCase())
    const entryEnd = skipValue(text, p)
    if (entryEnd === -1) return false
    const next = text.charCodeAt(entryEnd)
    if (next === CLOSE_BRACKET) return true
    if (next !== COMMA) return false
    p = entryEnd + 1
  }
}

/**
 * Table objects and CTE names of one serialized statement, or undefined when the text does
 * not have the expected layout (every `"BASE_TABLE"` / `"cte_map"` must be one we decode).
 */
export const scanSerializedStatement = (text: string): ScanResult | undefined => {
  const tables: Array<ScannedTable> = []
  for (let at = text.indexOf(baseTableValue); at !== -1; at = text.indexOf(baseTableValue, at + baseTableValue.length)) {
    const open = at - typeKey.length
    if (open < 0 || !text.startsWith(typeKey, open) || text.charCodeAt(at + baseTableValue.length) !== COMMA) return undefined
    const end = skipValue(text, open)
    if (end === -1) return undefined
    const parsed = parseSlice(text, open, end)
    if (typeof parsed !== "object" || parsed === null) return undefined
    tables.push(parsed as ScannedTable)
  }
  const ctes = new Set<string>()
  for (let at = text.indexOf(cteMapKey); at !== -1; at = text.indexOf(cteMapKey, at + cteMapKey.length)) {
    if (!text.startsWith(cteMapOpen, at) || !scanCteMap(text, at + cteMapOpen.length, ctes)) return undefined
  }
  return { tables, ctes }
}
