import type { LedgerRow } from "../../schemas/ledger"
import { blake3Hex, canonicalJson } from "../Artifacts/artifacts"
import { batchQueries } from "./verifyRange"

/** The `row_hash` the first row chains from (decisions.md 27). */
export const GENESIS_HASH = "0".repeat(64)

const encoder = new TextEncoder()

/** The public fields of a row, in the form they are hashed: `principal_id_verified` a boolean, never SQLite's 0. */
export const chainedFields = (row: LedgerRow): LedgerRow => ({
  decision_ref: row.decision_ref,
  kind: row.kind,
  timestamp: row.timestamp,
  principal: row.principal,
  principal_id: row.principal_id,
  principal_id_source: row.principal_id_source,
  principal_id_verified: row.principal_id_verified === true,
  target_principal: row.target_principal,
  capability: row.capability,
  model: row.model,
  effect: row.effect,
  rule_id: row.rule_id,
  plan_id: row.plan_id,
  reason: row.reason
})

/** The chained fields in canonical (sorted) key order. */
const SORTED_KEYS = Object.keys(chainedFields({} as LedgerRow)).sort() as ReadonlyArray<keyof LedgerRow>

/**
 * `canonicalJson(chainedFields(row))`, byte for byte, without building and sorting an object per
 * row: every field is a scalar, so each is one `JSON.stringify` (the walk `--verify` does a million times).
 */
export const canonicalRow = (row: LedgerRow): string => {
  let out = "{"
  for (const key of SORTED_KEYS) {
    const value = key === "principal_id_verified" ? row.principal_id_verified === true : row[key]
    if (value === undefined) continue
    out += `${out.length === 1 ? "" : ","}"${key}":${JSON.stringify(value)}`
  }
  return `${out}}`
}

/** hex BLAKE3(previous row_hash ‖ canonical JSON of the row without row_hash). */
export const rowHash = (previous: string, row: LedgerRow): string => blake3Hex(encoder.encode(previous + canonicalRow(row)))

/** The definition `rowHash` must agree with (tests compare the two). */
export const rowHashReference = (previous: string, row: LedgerRow): string =>
  blake3Hex(encoder.encode(previous + canonicalJson(chainedFields(row))))

/** A row as SQLite returns it (integer flag, extra columns) seen as the public row, without decoding. */
export const fromStored = (raw: Record<string, unknown>): LedgerRow => ({ ...(raw as unknown as LedgerRow), principal_id_verified: storedFlag(raw["principal_id_verified"]) })

/** `principal_id_verified` as stored (SQLite's 0, PostgreSQL's 0 or 1, or a boolean) as the boolean it hashes as. */
export const storedFlag = (value: unknown): boolean => value === 1 || value === true

/** The stored columns `--verify` reads, in canonical key order. */
export const VERIFY_COLUMNS = SORTED_KEYS

/** The text `rowHashFromValues` hashes: the previous hash, then the canonical JSON of a row read as values in `VERIFY_COLUMNS` order. */
export const hashedTextFromValues = (previous: string, values: ReadonlyArray<unknown>): string => {
  let out = "{"
  let i = 0
  for (const key of SORTED_KEYS) {
    const stored = values[i++]
    const value = key === "principal_id_verified" ? storedFlag(stored) : stored
    if (value === undefined) continue
    out += `${out.length === 1 ? "" : ","}"${key}":${JSON.stringify(value)}`
  }
  return `${previous}${out}}`
}

const KEY_PREFIXES = SORTED_KEYS.map((key, i) => `${i === 0 ? "{" : ","}"${key}":`)
const VERIFIED_AT = SORTED_KEYS.indexOf("principal_id_verified")
/** What `JSON.stringify` writes escaped: a quote, a backslash, a control character, any surrogate (a lone one is escaped). */
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/

/**
 * `hashedTextFromValues`, the same text (property-tested), at twice its speed: a string with nothing
 * to escape is quoted as it is, not passed through `JSON.stringify`. What pg's `--verify` walk hashes.
 */
export const hashedTextFast = (previous: string, values: ReadonlyArray<unknown>): string => {
  let out = previous
  for (let i = 0; i < KEY_PREFIXES.length; i++) {
    const value = values[i]
    if (value === undefined) return hashedTextFromValues(previous, values)
    out += KEY_PREFIXES[i]!
    if (i === VERIFIED_AT) out += storedFlag(value) ? "true" : "false"
    else if (value === null) out += "null"
    else if (typeof value === "string" && !ESCAPED.test(value)) out += `"${value}"`
    else out += JSON.stringify(value)
  }
  return `${out}}`
}

/** hex BLAKE3 of a text's UTF-8 bytes, with the reference implementation. */
export const hashText = (text: string): string => blake3Hex(encoder.encode(text))

/** `rowHash` over a row read as values in `VERIFY_COLUMNS` order: no object per row. */
export const rowHashFromValues = (previous: string, values: ReadonlyArray<unknown>): string => hashText(hashedTextFromValues(previous, values))

/**
 * The canonical JSON of a stored row rendered by SQLite (`json_object` with the keys in canonical
 * order): the fast `--verify` walk hashes it without building the row in JS. It equals `canonicalRow`
 * for every TEXT, NULL and safe INTEGER value (property-tested); a row where it differs (a REAL, an
 * integer past 2^53, invalid UTF-8) fails to recompute there and is re-checked with the reference.
 */
export const CANONICAL_ROW_SQL = `json_object(${SORTED_KEYS.map((k) => `'${k}', ${k === "principal_id_verified" ? "json('false')" : k}`).join(", ")})`

/**
 * SQL: a row's stored `row_hash` when the fast walk can judge the row by its bytes alone, else 64
 * bytes that never equal a hex digest, so the reference judges it: a hash that is not 64 bytes of
 * text, or a REAL `rule_id` (SQLite and JS print floats differently).
 */
export const STORED_HASH_SQL = `CASE WHEN typeof(row_hash) = 'text' AND octet_length(row_hash) = 64 AND typeof(rule_id) <> 'real' THEN row_hash ELSE '${"-".repeat(64)}' END`

/** What the fast walk's ranges are given (verifyRange.ts). */
export const FAST_WALK = { batchSql: batchQueries(CANONICAL_ROW_SQL, STORED_HASH_SQL), genesis: GENESIS_HASH } as const
