// The fast `audit --verify` walk (SQLite-rendered canonical rows, hash-wasm BLAKE3, worker threads)
// against the reference walk (JS canonical JSON, @noble/hashes), on generated ledgers with and
// without tampering: the reports must be equal, field for field.
import { NodeContext } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import fc from "fast-check"
import { createBLAKE3 } from "hash-wasm"
import { availableParallelism } from "node:os"
import { join } from "node:path"
import type { LedgerRow } from "../../src/schemas/ledger"
import { blake3Hex } from "../../src/services/Artifacts/artifacts"
import { CANONICAL_ROW_SQL, canonicalRow, fromStored, GENESIS_HASH, rowHash } from "../../src/services/Ledger/chain"
import { chainVerifier } from "../../src/services/Ledger/verify"
import { verifyRanges } from "../../src/services/Ledger/verifyParallel"
import * as StateStore from "../../src/services/StateStore/StateStore"
import { makeProject } from "../support/cli"

// Any code point, control characters and quotes included; a lone surrogate is stored as U+FFFD.
const text = fc.string({ unit: "binary", maxLength: 24 })
const nullable = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: null })

const generatedRow = fc.record({
  kind: fc.constantFrom("evaluation", "escalation", "freeze", "unfreeze", "verification", "approval"),
  principal: fc.constantFrom("agent", "human"),
  principal_id: nullable(text),
  principal_id_source: nullable(fc.constantFrom("flag", "env")),
  target_principal: nullable(fc.constantFrom("agent", "human")),
  capability: nullable(text),
  model: nullable(text),
  effect: nullable(fc.constantFrom("allow", "require_review", "deny")),
  rule_id: nullable(fc.integer({ min: -5, max: 1_000_000 })),
  plan_id: nullable(text),
  reason: text,
  timestamp: fc.date({ min: new Date("2020-01-01"), max: new Date("2030-01-01"), noInvalidDate: true }).map((d) => d.toISOString())
})

const tamper = fc.oneof(
  fc.constant({ op: "none" as const }),
  fc.record({ op: fc.constant("edit" as const), at: fc.nat(), reason: text }),
  fc.record({ op: fc.constant("delete" as const), at: fc.nat() }),
  fc.record({ op: fc.constant("swap" as const), at: fc.nat() }),
  fc.record({ op: fc.constant("nullHash" as const), at: fc.nat() }),
  fc.constant({ op: "deleteTail" as const })
)

type Generated = typeof generatedRow extends fc.Arbitrary<infer T> ? T : never
type Tamper = typeof tamper extends fc.Arbitrary<infer T> ? T : never

const store = () => StateStore.layer(join(makeProject(), "state.sqlite"), "write").pipe(Layer.provide(NodeContext.layer))

/** Inserts the rows chained as appends chain them (the reference `rowHash`), then applies the tampering. */
const seed = (rows: ReadonlyArray<Generated>, edit: Tamper) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    let previous = GENESIS_HASH
    for (const [i, r] of rows.entries()) {
      const row = { ...r, decision_ref: `${r.timestamp}|${i}` } as unknown as LedgerRow
      yield* sql`INSERT INTO ledger ${sql.insert({ ...row, principal_id_verified: 0, row_hash: "" })}`
      // Hash what SQLite kept (a lone surrogate became U+FFFD), as an append hashes its stored row.
      const [stored] = yield* sql<Record<string, unknown>>`SELECT * FROM ledger WHERE seq = ${i + 1}`
      previous = rowHash(previous, fromStored(stored!))
      yield* sql`UPDATE ledger SET row_hash = ${previous} WHERE seq = ${i + 1}`
    }
    const at = "at" in edit ? (edit.at % rows.length) + 1 : 0
    switch (edit.op) {
      case "edit":
        return yield* sql`UPDATE ledger SET reason = ${edit.reason} WHERE seq = ${at}`
      case "delete":
        return yield* sql`DELETE FROM ledger WHERE seq = ${at}`
      case "swap":
        if (at >= rows.length) return
        yield* sql`UPDATE ledger SET seq = -1 WHERE seq = ${at}`
        yield* sql`UPDATE ledger SET seq = ${at} WHERE seq = ${at + 1}`
        return yield* sql`UPDATE ledger SET seq = ${at + 1} WHERE seq = -1`
      case "nullHash":
        return yield* sql`UPDATE ledger SET row_hash = NULL WHERE seq = ${at}`
      case "deleteTail":
        return yield* sql`DELETE FROM ledger WHERE seq = ${rows.length}`
    }
  })

describe("ledger chain: the fast walk agrees with the reference", () => {
  it.effect("SQLite's canonical row equals canonicalRow, and hash-wasm's BLAKE3 equals @noble's", () =>
    Effect.gen(function* () {
      const hasher = yield* Effect.promise(() => createBLAKE3())
      yield* Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(fc.array(generatedRow, { minLength: 1, maxLength: 12 }), (rows) =>
            Effect.runPromise(
              Effect.gen(function* () {
                yield* seed(rows, { op: "none" })
                const sql = yield* SqlClient.SqlClient
                const stored = yield* sql<Record<string, unknown>>`SELECT *, ${sql.literal(CANONICAL_ROW_SQL)} AS canonical FROM ledger ORDER BY seq`
                for (const row of stored) {
                  const canonical = canonicalRow(fromStored(row))
                  expect(row["canonical"]).toBe(canonical)
                  const bytes = new TextEncoder().encode(GENESIS_HASH + canonical)
                  expect(hasher.init().update(bytes).digest("hex")).toBe(blake3Hex(bytes))
                }
              }).pipe(Effect.provide(store()))
            )
          ),
          { numRuns: 40 }
        )
      )
    })
  )

  it.effect("edited, deleted, swapped, unhashed rows and a deleted tail: the same report in workers, in-process and by the reference", () =>
    Effect.promise(() =>
      fc.assert(
        fc.asyncProperty(fc.array(generatedRow, { minLength: 1, maxLength: 30 }), tamper, (rows, edit) =>
          Effect.runPromise(
            Effect.gen(function* () {
              yield* seed(rows, edit)
              const verifier = yield* chainVerifier
              const reference = yield* verifier.verifySequential
              const inWorkers = yield* verifier.verify({ minRowsPerWorker: 1, maxWorkers: 3 })
              const inProcess = yield* verifier.verify({ minRowsPerWorker: Number.MAX_SAFE_INTEGER, maxWorkers: 1 })
              expect(inWorkers).toEqual(reference)
              expect(inProcess).toEqual(reference)
              if (edit.op === "none") {
                expect(reference.intact).toBe(true)
                // The workers themselves, not a fallback: every row verified across the ranges.
                const { path } = yield* StateStore.StateStore
                const ranges = yield* Effect.promise(() =>
                  verifyRanges(StateStore.readTarget(path), 0, rows.length, rows.length, { canonicalSql: CANONICAL_ROW_SQL, genesis: GENESIS_HASH }, { minRowsPerWorker: 1, maxWorkers: 3 })
                )
                expect(ranges.length).toBe(Math.min(3, availableParallelism(), rows.length))
                expect(ranges.reduce((n, r) => n + r.rows, 0)).toBe(rows.length)
                expect(ranges.every((r) => r.mismatchSeq === null)).toBe(true)
              }
            }).pipe(Effect.provide(store()))
          )
        ),
        { numRuns: 30 }
      )
    )
  )
})
