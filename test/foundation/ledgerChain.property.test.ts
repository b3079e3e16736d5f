// The fast `audit --verify` walk (SQLite-rendered canonical rows, hash-wasm BLAKE3, worker threads)
// against the reference walk (JS canonical JSON, @noble/hashes), on generated ledgers with and
// without tampering: the reports must be equal, field for field.
import { NodeContext } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import fc from "fast-check"
import { createBlake3Hasher } from "../../src/platform/blake3"
import { availableParallelism } from "node:os"
import { join } from "node:path"
import type { LedgerRow } from "../../src/schemas/ledger"
import { blake3Hex } from "../../src/services/Artifacts/artifacts"
import { CANONICAL_ROW_SQL, canonicalRow, FAST_WALK, fromStored, GENESIS_HASH, hashedTextFast, hashedTextFromValues, rowHash, VERIFY_COLUMNS } from "../../src/services/Ledger/chain"
import { chainVerifier } from "../../src/services/Ledger/verify"
import { verifyRanges } from "../../src/services/Ledger/verifyParallel"
import type { RangeResult } from "../../src/services/Ledger/verifyRange"
import { chainedRowHash } from "../../src/services/StateStore/migrations/005_ledger_chain"
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
  fc.constant({ op: "deleteTail" as const }),
  // Bytes SQLite keeps as TEXT, valid UTF-8 or not; re-chained (as if an append had hashed them) or left broken.
  fc.record({ op: fc.constant("rawBytes" as const), at: fc.nat(), bytes: fc.uint8Array({ maxLength: 8 }), rechain: fc.boolean() }),
  // A REAL rule_id, re-chained: SQLite and JS print it differently, so the reference must judge it.
  fc.record({ op: fc.constant("realRule" as const), at: fc.nat(), value: fc.double({ noNaN: true, noDefaultInfinity: true }) }),
  // A stored hash in another form: upper case, one byte longer or shorter, a BLOB, not hex.
  fc.record({ op: fc.constant("hashForm" as const), at: fc.nat(), form: fc.constantFrom("upper", "longer", "shorter", "blob", "notHex") })
)

type Generated = typeof generatedRow extends fc.Arbitrary<infer T> ? T : never
type Tamper = typeof tamper extends fc.Arbitrary<infer T> ? T : never

const store = () => StateStore.layer(join(makeProject(), "state.sqlite"), "write").pipe(Layer.provide(NodeContext.layer))

/** Re-hashes rows `seq` >= `from` as appends hash them: what SQLite kept (a lone surrogate became U+FFFD), with the reference `rowHash`. */
const rechain = (from: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [before] = yield* sql<{ row_hash: string }>`SELECT row_hash FROM ledger WHERE seq < ${from} ORDER BY seq DESC LIMIT 1`
    let previous = before?.row_hash ?? GENESIS_HASH
    for (const stored of yield* sql<Record<string, unknown>>`SELECT * FROM ledger WHERE seq >= ${from} ORDER BY seq`) {
      previous = rowHash(previous, fromStored(stored))
      yield* sql`UPDATE ledger SET row_hash = ${previous} WHERE seq = ${stored["seq"] as number}`
    }
  })

const HASH_FORMS = {
  upper: "upper(row_hash)",
  longer: "row_hash || '0'",
  shorter: "substr(row_hash, 2)",
  blob: "CAST(row_hash AS BLOB)",
  notHex: "'g' || substr(row_hash, 2)"
} as const

/** Inserts the rows chained as appends chain them, then applies the tampering. */
const seed = (rows: ReadonlyArray<Generated>, edit: Tamper) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    for (const [i, r] of rows.entries()) {
      const row = { ...r, decision_ref: `${r.timestamp}|${i}` } as unknown as LedgerRow
      yield* sql`INSERT INTO ledger ${sql.insert({ ...row, principal_id_verified: 0, row_hash: "" })}`
    }
    yield* rechain(1)
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
      case "rawBytes":
        yield* sql`UPDATE ledger SET reason = CAST(${sql.literal(`X'${Buffer.from(edit.bytes).toString("hex")}'`)} AS TEXT) WHERE seq = ${at}`
        return edit.rechain ? yield* rechain(at) : undefined
      case "realRule":
        yield* sql`UPDATE ledger SET rule_id = ${edit.value} WHERE seq = ${at}`
        return yield* rechain(at)
      case "hashForm":
        return yield* sql`UPDATE ledger SET row_hash = ${sql.literal(HASH_FORMS[edit.form])} WHERE seq = ${at}`
    }
  })

/** The first row the fast ranges themselves stopped at (null: every range verified to its end). */
const fastBreak = (ranges: ReadonlyArray<RangeResult>) => ranges.find((r) => r.mismatchSeq !== null)?.mismatchSeq ?? null

describe("ledger chain: the fast walk agrees with the reference", () => {
  it.effect("SQLite's canonical row equals canonicalRow, and hash-wasm's BLAKE3 equals @noble's", () =>
    Effect.gen(function* () {
      const hasher = yield* Effect.promise(() => createBlake3Hasher())
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

  // PostgreSQL's --verify walk hashes hashedTextFast; any value a column can hold (lone surrogates, floats, flags as 0/1/booleans) must give the reference's text.
  it("hashedTextFast writes the text hashedTextFromValues writes, for any stored values", () => {
    const unit = fc.oneof(fc.string({ unit: "binary", minLength: 1, maxLength: 1 }), fc.constantFrom("\ud800", "\udfff", "\ud83d\ude00", '"', "\\", "\u0000", "\u001f", "\u007f", "\u2028"))
    const value = fc.oneof(fc.string({ unit, maxLength: 24 }), fc.constant(null), fc.integer(), fc.double(), fc.boolean(), fc.constantFrom(0, 1, "0", "1"))
    fc.assert(
      fc.property(fc.array(value, { minLength: VERIFY_COLUMNS.length + 2, maxLength: VERIFY_COLUMNS.length + 2 }), fc.string(), (values, previous) => {
        expect(hashedTextFast(previous, values)).toBe(hashedTextFromValues(previous, values))
      }),
      { numRuns: 2000 }
    )
  })

  it.effect("edited, deleted, swapped, unhashed, re-encoded rows and a deleted tail: the same report in workers, in-process and by the reference", () =>
    Effect.promise(() =>
      fc.assert(
        fc.asyncProperty(fc.array(generatedRow, { minLength: 1, maxLength: 30 }), tamper, fc.integer({ min: 1, max: 6 }), (rows, edit, batchSeqs) =>
          Effect.runPromise(
            Effect.gen(function* () {
              yield* seed(rows, edit)
              const verifier = yield* chainVerifier
              const reference = yield* verifier.verifySequential
              const parallel = { minRowsPerWorker: 1, maxWorkers: 3, batchSeqs }
              const inWorkers = yield* verifier.verify(parallel)
              const inProcess = yield* verifier.verify({ minRowsPerWorker: Number.MAX_SAFE_INTEGER, maxWorkers: 1, batchSeqs })
              expect(inWorkers).toEqual(reference)
              expect(inProcess).toEqual(reference)
              if (edit.op === "none") expect(reference.intact).toBe(true)
              // The ranges themselves, not a fallback: they stop at the reference's row (none for an intact chain or a
              // deleted tail); what they leave to the reference is a REAL, or an integer past 2^53 (SQLite prints it exactly,
              // JS the double's shortest form), where they stop at once.
              const sql = yield* SqlClient.SqlClient
              const [bounds] = yield* sql<{ last: number; rows: number }>`SELECT max(seq) AS last, count(*) AS rows FROM ledger WHERE seq > 0`
              if (bounds!.rows === 0) return
              const { path } = yield* StateStore.StateStore
              const ranges = yield* Effect.promise(() => verifyRanges(StateStore.readTarget(path), 0, bounds!.last, bounds!.rows, FAST_WALK, parallel))
              expect(ranges.length).toBe(Math.min(3, availableParallelism(), bounds!.rows))
              const at = "at" in edit ? (edit.at % rows.length) + 1 : 0
              const [real] = yield* sql<{ n: number }>`SELECT count(*) AS n FROM ledger WHERE seq = ${at} AND (typeof(rule_id) = 'real' OR (typeof(rule_id) = 'integer' AND rule_id NOT BETWEEN -9007199254740991 AND 9007199254740991))`
              if (real!.n > 0) expect(fastBreak(ranges)).toBe(at)
              else expect(fastBreak(ranges)).toBe(reference.first_bad?.decision_ref == null ? null : reference.first_bad.seq)
              if (fastBreak(ranges) === null) {
                expect(ranges.reduce((n, r) => n + r.rows, 0)).toBe(bounds!.rows)
                expect(ranges.at(-1)!.lastHash).toBe(reference.head_hash)
              }
            }).pipe(Effect.provide(store()))
          )
        ),
        {
          numRuns: 40,
          // Found by a random run: a REAL rule_id SQLite stores as an INTEGER past 2^53.
          examples: [
            [
              [{ kind: "evaluation", principal: "agent", principal_id: null, principal_id_source: null, target_principal: null, capability: null, model: null, effect: null, rule_id: null, plan_id: null, reason: "", timestamp: "2020-01-01T00:00:00.000Z" }],
              { op: "realRule", at: 0, value: -35933016822209910 },
              1
            ]
          ]
        }
      )
    )
  )

  it("migration 005's frozen copy of the row hash still equals the live one (stores it chained verify)", () => {
    fc.assert(
      fc.property(fc.array(generatedRow, { minLength: 1, maxLength: 8 }), (rows) => {
        let frozen = GENESIS_HASH
        let live = GENESIS_HASH
        for (const [i, r] of rows.entries()) {
          // A row as SQLite returns it to the migration: every column, the flag an integer.
          const stored = { ...r, decision_ref: `${r.timestamp}|${i}`, seq: i + 1, principal_id_verified: 0, row_hash: null }
          frozen = chainedRowHash(frozen, stored)
          live = rowHash(live, fromStored(stored))
          expect(frozen).toBe(live)
        }
      }),
      { numRuns: 300 }
    )
  })

  it.effect("a batch reads the rows in seq order: a rowid range scan", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      for (const query of [FAST_WALK.batchSql.blob, FAST_WALK.batchSql.text]) {
        const plan = yield* sql.unsafe<{ detail: string }>(`EXPLAIN QUERY PLAN ${query}`, [0, 10])
        expect(plan.map((p) => p.detail)).toEqual(["SEARCH ledger USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)"])
      }
    }).pipe(Effect.provide(store()))
  )
})
