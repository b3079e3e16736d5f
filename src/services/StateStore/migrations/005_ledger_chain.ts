import { Effect } from "effect"
import { blake3Hex } from "../../Artifacts/artifacts"
import type { Migration } from "../Migration"

const PAGE = 5000

/** The `row_hash` the first row chains from. */
const GENESIS_HASH = "0".repeat(64)

/**
 * The hashed fields as this migration chained them, in canonical (sorted) order: a frozen copy of
 * Ledger/chain.ts as of version 5, so a later change there never rewrites what this migration did.
 */
const CHAINED_KEYS = [
  "capability",
  "decision_ref",
  "effect",
  "kind",
  "model",
  "plan_id",
  "principal",
  "principal_id",
  "principal_id_source",
  "principal_id_verified",
  "reason",
  "rule_id",
  "target_principal",
  "timestamp"
] as const

const encoder = new TextEncoder()

/** hex BLAKE3(previous row_hash ‖ canonical JSON of the stored row's chained fields); `principal_id_verified` is hashed as `false`. */
export const chainedRowHash = (previous: string, stored: Record<string, unknown>): string => {
  let json = "{"
  for (const key of CHAINED_KEYS) {
    const value = key === "principal_id_verified" ? false : stored[key]
    if (value === undefined) continue
    json += `${json.length === 1 ? "" : ","}"${key}":${JSON.stringify(value)}`
  }
  return blake3Hex(encoder.encode(`${previous}${json}}`))
}

/** Ledger rows form a hash chain (decisions.md 27); rows written before it are chained in seq order. */
export const migration: Migration = {
  version: 5,
  name: "ledger hash chain",
  statements: [`ALTER TABLE ledger ADD COLUMN row_hash TEXT`],
  run: (sql) =>
    Effect.gen(function* () {
      let previous = GENESIS_HASH
      let after = 0
      for (;;) {
        const rows = yield* sql<Record<string, unknown> & { seq: number }>`SELECT * FROM ledger WHERE seq > ${after} ORDER BY seq LIMIT ${PAGE}`
        for (const raw of rows) {
          previous = chainedRowHash(previous, raw)
          yield* sql`UPDATE ledger SET row_hash = ${previous} WHERE seq = ${raw.seq}`
        }
        if (rows.length < PAGE) return
        after = rows[rows.length - 1]!.seq
      }
    })
}
