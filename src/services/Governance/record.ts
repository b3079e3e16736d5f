import { Effect, Option } from "effect"
import * as NodeFs from "node:fs"
import { DuckDb } from "../Warehouse/embedded"
import type { StatementFailed, WarehouseService } from "../Warehouse/Warehouse"

/**
 * The warehouse's governance record (decisions 35): which state store governs it, the digest of
 * the `[policy]` it was governed under, and the ledger head after the last governed mutation.
 * One row in `pcli.governance`, in the DuckDB file or in the remote warehouse's `pcli` schema.
 */
export interface GovernanceRecord {
  readonly store_id: string
  readonly policy_digest: string
  readonly head_seq: number
  readonly head_hash: string
  /** Where the governing store was when it last governed: a mismatch's refusal is recorded there. */
  readonly store_path?: string | undefined
}

/** How DuckDB and the remote warehouse say the table (or its schema) is not there: no record. */
const absent = /does not exist|TABLE_OR_VIEW_NOT_FOUND|SCHEMA_NOT_FOUND/i

const literal = (value: string) => `'${value.replaceAll("'", "''")}'`

/** The record, or undefined when the warehouse has none (never governed). */
export const readRecord = (wh: WarehouseService): Effect.Effect<GovernanceRecord | undefined, StatementFailed> =>
  wh.execute("SELECT store_id, policy_digest, head_seq, head_hash, store_path FROM pcli.governance LIMIT 1").pipe(
    Effect.map(({ rows }) => {
      const row = rows[0]
      return row === undefined
        ? undefined
        : {
            store_id: String(row[0]),
            policy_digest: String(row[1]),
            head_seq: Number(row[2]),
            head_hash: String(row[3]),
            ...(row[4] === null || row[4] === undefined ? {} : { store_path: String(row[4]) })
          }
    }),
    Effect.catchIf((e) => absent.test(e.detail), () => Effect.succeed(undefined))
  )

/** Writes the record: one UPDATE when it exists, else the schema, table and row (the first governed mutation). */
export const writeRecord = (wh: WarehouseService, record: GovernanceRecord, exists: boolean, at: string): Effect.Effect<void, StatementFailed> => {
  const storePath = record.store_path === undefined ? "NULL" : literal(record.store_path)
  const values = [literal(record.store_id), literal(record.policy_digest), String(record.head_seq), literal(record.head_hash), literal(at), storePath]
  if (exists) {
    return Effect.asVoid(
      wh.execute(
        `UPDATE pcli.governance SET store_id = ${values[0]}, policy_digest = ${values[1]}, head_seq = ${values[2]}, head_hash = ${values[3]}, updated_at = ${values[4]}, store_path = ${values[5]}`
      )
    )
  }
  return Effect.asVoid(
    Effect.all(
      [
        wh.execute("CREATE SCHEMA IF NOT EXISTS pcli"),
        wh.execute(
          "CREATE TABLE IF NOT EXISTS pcli.governance (store_id STRING NOT NULL, policy_digest STRING NOT NULL, head_seq BIGINT NOT NULL, head_hash STRING NOT NULL, updated_at STRING NOT NULL, store_path STRING)"
        ),
        wh.execute(`INSERT INTO pcli.governance VALUES (${values.join(", ")})`)
      ],
      { discard: true }
    )
  )
}

/** False for an embedded file that does not exist: a read that is not a mutation never creates one. */
export const warehouseExists: Effect.Effect<boolean> = Effect.map(Effect.serviceOption(DuckDb), (duck) =>
  Option.isNone(duck) || duck.value.path === ":memory:" || NodeFs.existsSync(duck.value.path)
)
