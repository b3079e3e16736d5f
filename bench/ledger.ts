// Filtered ledger reads over 1,000,000 rows: SQL with indexes vs. a full read filtered in JS.
import { NodeContext } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { Chunk, Effect, Layer, Stream } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { auditScorecard } from "../src/commands/auditScorecard"
import { GENESIS_HASH, rowHash } from "../src/services/Ledger/chain"
import { Ledger, type LedgerFilter, type LedgerRow } from "../src/services/Ledger/Ledger"
import * as LedgerSqlite from "../src/services/Ledger/sqlite"
import * as StateStore from "../src/services/StateStore/StateStore"
import { printTable } from "./support"

const ROWS = 1_000_000
const path = join(mkdtempSync(join(tmpdir(), "pcli-bench-ledger-")), "state.sqlite")
const start = Date.parse("2026-01-01T00:00:00Z")
const step = (300 * 24 * 3600 * 1000) / ROWS // 300 days of decisions

const seed = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const batch = 2000
  let previous = GENESIS_HASH
  // One transaction for the whole seed: the bench measures reads, not a million fsyncs.
  yield* sql.withTransaction(Effect.gen(function* () {
  for (let i = 0; i < ROWS; i += batch) {
    const rows = Array.from({ length: Math.min(batch, ROWS - i) }, (_, k) => {
      const n = i + k
      const ts = new Date(start + n * step).toISOString()
      const row = {
        decision_ref: `${ts}|plan-${n % 5000}|m${n % 1000}|${n}`,
        kind: n % 50 === 0 ? "freeze" : "evaluation",
        timestamp: ts,
        principal: n % 2 === 0 ? "agent" : "human",
        principal_id: n % 97 === 0 ? null : `p${n % 100}`,
        principal_id_source: n % 97 === 0 ? null : "flag",
        capability: "apply",
        model: `m${n % 1000}`,
        effect: "allow",
        rule_id: n % 10,
        plan_id: `plan-${n % 5000}`,
        reason: "bench"
      } as const
      // Seeded rows are chained exactly as appends chain them, so --verify walks an intact chain.
      previous = rowHash(previous, { ...row, principal_id_verified: false, target_principal: null })
      return { ...row, row_hash: previous }
    })
    yield* sql`INSERT INTO ledger ${sql.insert(rows)}`
  }
  }))
})

const timed = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const t0 = performance.now()
    const value = yield* effect
    return [value, performance.now() - t0] as const
  })

const countWith = (filter: LedgerFilter) =>
  Effect.flatMap(Ledger, (l) => Stream.runCount(l.query(filter)))

const countByScan = (predicate: (r: LedgerRow) => boolean) =>
  Effect.flatMap(Ledger, (l) => Stream.runCount(Stream.filter(l.query({}), predicate)))

const since = new Date(start + 297 * 24 * 3600 * 1000)
const cases: ReadonlyArray<readonly [string, LedgerFilter, (r: LedgerRow) => boolean]> = [
  ["principal_id = p42", { principalId: "p42" }, (r) => r.principal_id === "p42"],
  ["principal_id IS NULL", { principalId: null }, (r) => r.principal_id === null],
  ["model in (m7, m8)", { models: ["m7", "m8"] }, (r) => r.model === "m7" || r.model === "m8"],
  ["since last 3 days", { since }, (r) => r.timestamp >= since.toISOString()],
  ["plan_id = plan-123", { planId: "plan-123" }, (r) => r.plan_id === "plan-123"]
]

const program = Effect.gen(function* () {
  const [, seedMs] = yield* timed(seed)
  console.log(`seeded ${ROWS.toLocaleString()} rows in ${(seedMs / 1000).toFixed(1)} s\n`)
  const rows: Array<Array<string>> = []
  for (const [name, filter, predicate] of cases) {
    const [n, sqlMs] = yield* timed(countWith(filter))
    const [m, scanMs] = yield* timed(countByScan(predicate))
    if (n !== m) throw new Error(`${name}: SQL returned ${n}, scan ${m}`)
    rows.push([name, n.toLocaleString(), sqlMs.toFixed(0), scanMs.toFixed(0), (sqlMs / scanMs).toFixed(3)])
  }
  printTable(["filter", "rows", "SQL ms", "full scan ms (baseline)", "ratio"], rows)
  const [report, verifyMs] = yield* timed(Effect.flatMap(Ledger, (l) => l.verify))
  if (!report.intact) throw new Error(`seeded chain reported broken at ${report.first_bad?.seq}`)
  const [card, cardMs] = yield* timed(auditScorecard({ by: "principal", window: "all" }))
  const [, scanAllMs] = yield* timed(countByScan(() => true))
  console.log("")
  printTable(["operation", "rows", "ms", "rows/s"], [
    ["audit --verify", report.rows.toLocaleString(), verifyMs.toFixed(0), Math.round(report.rows / (verifyMs / 1000)).toLocaleString()],
    ["audit --scorecard", card.evaluations.toLocaleString(), cardMs.toFixed(0), Math.round(card.evaluations / (cardMs / 1000)).toLocaleString()],
    ["full decoded scan (baseline)", ROWS.toLocaleString(), scanAllMs.toFixed(0), Math.round(ROWS / (scanAllMs / 1000)).toLocaleString()]
  ])
  console.log(`peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`)
})

Effect.runPromise(
  program.pipe(
    Effect.provide(LedgerSqlite.layer.pipe(Layer.provideMerge(StateStore.layer(path, "write")), Layer.provide(NodeContext.layer)))
  )
).catch((e) => {
  console.error(e)
  process.exit(1)
})
