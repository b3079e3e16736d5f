/** Value rules of the product spec: identifiers, source triples, the type vocabulary, `max_lag`. */

const BARE_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/

/** ASCII bare identifier: names product state dirs and model files, so nothing path-like passes. */
export const isBareIdentifier = (s: string): boolean => BARE_IDENTIFIER.test(s)

const GLOB_OR_SPACE = /[*?[\]{} ]/

/** `catalog.schema.table`, exactly three non-empty parts, no glob characters or spaces. */
export const isExactTriple = (s: string): boolean => {
  if (GLOB_OR_SPACE.test(s)) return false
  const parts = s.split(".")
  return parts.length === 3 && parts.every((p) => p.length > 0)
}

/** The column type vocabulary, exact and case-sensitive. */
export const TYPE_VOCABULARY = [
  "Array",
  "Binary",
  "Boolean",
  "Date",
  "Decimal",
  "Float32",
  "Float64",
  "Int32",
  "Int64",
  "Map",
  "String",
  "Struct",
  "Timestamp",
  "TimestampNtz",
  "Variant"
] as const

const VOCABULARY: ReadonlySet<string> = new Set(TYPE_VOCABULARY)

/** The only parametric types and their bracket pair. */
const PARAMETERS: Readonly<Record<string, readonly [string, string]>> = {
  Decimal: ["(", ")"],
  Array: ["<", ">"],
  Map: ["<", ">"]
}

/** Warehouse spellings (upper-cased) → the vocabulary type a user most likely meant. */
const SUGGESTIONS: Readonly<Record<string, string>> = {
  BIGINT: "Int64",
  INT: "Int32",
  INTEGER: "Int32",
  SMALLINT: "Int32",
  TINYINT: "Int32",
  FLOAT: "Float32",
  REAL: "Float32",
  DOUBLE: "Float64",
  CHAR: "String",
  TEXT: "String",
  VARCHAR: "String",
  STRING: "String",
  DATETIME: "Timestamp",
  TIMESTAMP: "Timestamp",
  TIMESTAMP_NTZ: "TimestampNtz",
  NUMERIC: "Decimal",
  DECIMAL: "Decimal",
  BOOL: "Boolean",
  BOOLEAN: "Boolean",
  BINARY: "Binary",
  VARBINARY: "Binary",
  ARRAY: "Array",
  MAP: "Map",
  STRUCT: "Struct",
  VARIANT: "Variant",
  DATE: "Date"
}

const suggestionFor = (base: string): string | undefined => {
  const upper = base.toUpperCase()
  if (Object.prototype.hasOwnProperty.call(SUGGESTIONS, upper)) return SUGGESTIONS[upper]
  return TYPE_VOCABULARY.find((t) => t.toUpperCase() === upper)
}

/** `undefined` when `type` is in the vocabulary, else why not (with a suggestion when there is one). */
export const typeProblem = (type: string): string | undefined => {
  if (VOCABULARY.has(type)) return undefined
  const open = type.search(/[(<]/)
  const base = open === -1 ? type : type.slice(0, open)
  if (open !== -1 && VOCABULARY.has(base)) {
    const pair = Object.prototype.hasOwnProperty.call(PARAMETERS, base) ? PARAMETERS[base] : undefined
    if (pair === undefined) return `${base} takes no parameters`
    if (type[open] !== pair[0]) return `${base} takes parameters in ${pair[0]}…${pair[1]}`
    // The closing bracket must end the string; the contents are not validated.
    if (!type.endsWith(pair[1]) || type.length < open + 2) return `${base}${pair[0]}…${pair[1]} must end with '${pair[1]}'`
    return undefined
  }
  const suggestion = suggestionFor(base.trim())
  const known = `expected one of ${TYPE_VOCABULARY.join(", ")}`
  return suggestion === undefined ? `not a pcli type (${known})` : `not a pcli type (did you mean ${suggestion}?)`
}

const MAX_LAG = /^([1-9][0-9]*)([shd])$/
const U64_MAX = (1n << 64n) - 1n
const UNIT_SECONDS: Readonly<Record<string, bigint>> = { s: 1n, h: 3600n, d: 86400n }

/** `max_lag` → seconds: a positive ASCII integer without a leading zero, then one of s/h/d; `undefined` outside the grammar or past u64. */
export const parseMaxLag = (text: string): bigint | undefined => {
  const m = MAX_LAG.exec(text)
  if (m === null) return undefined
  const seconds = BigInt(m[1]!) * UNIT_SECONDS[m[2]!]!
  return seconds > U64_MAX ? undefined : seconds
}

/** Seconds the sidecar's integer can hold (the pipeline reads it as a safe JS integer). */
export const MAX_REPRESENTABLE_LAG = BigInt(Number.MAX_SAFE_INTEGER)
