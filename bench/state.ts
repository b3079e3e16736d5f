// Team state (decision 36): 8 processes append 10,000 ledger rows to one store, single and batched, on
// PostgreSQL and on SQLite (the baseline, same run); then the chain is checked (count, broken links,
// forks, audit --verify), 8 processes race to approve one plan (exactly one may win), freeze reads are
// timed while writers run, and audit --verify's throughput is measured on a larger pg ledger.
// Needs PostgreSQL at 127.0.0.1:5432 (trust, database `test`); BENCH_STATE_ROWS, BENCH_STATE_VERIFY_ROWS resize it.
import { NodeContext } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { Effect, Either, Layer } from "effect"
import { spawn } from "node:child_process"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { rowHash } from "../src/services/Ledger/chain"
import { Ledger, type NewLedgerRow } from "../src/services/Ledger/Ledger"
import * as LedgerSqlite from "../src/services/Ledger/sqlite"
import * as PlanStore from "../src/services/Plans/PlanStore"
import * as StateStore from "../src/services/StateStore/StateStore"
import { approveAs } from "../test/support/approvalRace"
import { printTable } from "./support"

const PG_URL = process.env["BENCH_STATE_PG_URL"] ?? "postgres://postgres@127.0.0.1:5432/test"
const WRITERS = 8
const ROWS = Number(process.env["BENCH_STATE_ROWS"] ?? 10_000)
const VERIFY_ROWS = Number(process.env["BENCH_STATE_VERIFY_ROWS"] ?? 200_000)
const BATCH = 10
const self = fileURLToPath(import.meta.url)

type Backend = "sqlite" | "postgres"
interface Target {
  readonly backend: Backend
  readonly path: string
  readonly schema: string
}

const location = (t: Target): StateStore.StateLocation =>
  t.backend === "postgres" ? { path: t.path, createParent: true, pg: { url: PG_URL, schema: t.schema } } : { path: t.path, createParent: true }

const storeLayer = (t: Target) => LedgerSqlite.layer.pipe(Layer.provideMerge(StateStore.layer(location(t), "write")), Layer.provide(NodeContext.layer))

const row = (writer: number, i: number): NewLedgerRow => ({
  kind: "evaluation",
  principal: "agent",
  principal_id: `writer-${writer}`,
  principal_id_source: "flag",
  capability: "apply",
  model: `m${i % 50}`,
  effect: "allow",
  rule_id: 0,
  plan_id: `plan-${writer}-${i}`,
  reason: "rule 0 allows"
})

const percentile = (xs: ReadonlyArray<number>, p: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length === 0 ? 0 : s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!
}

// ---- child roles -------------------------------------------------------------------------------

/** Wall-clock ms comparable across processes. */
const wallNow = () => performance.timeOrigin + performance.now()

/**
 * One writer: `count` rows in appends of `batch`; each append's latency in ms, and when its first
 * append started and its last ended (after node, the bundle and the store's open), as JSON on stdout.
 */
const writer = (t: Target, w: number, count: number, batch: number) =>
  Effect.gen(function* () {
    const ledger = yield* Ledger
    const latencies: Array<number> = []
    const start = wallNow()
    for (let i = 0; i < count; i += batch) {
      const rows = Array.from({ length: Math.min(batch, count - i) }, (_, k) => row(w, i + k))
      const t0 = performance.now()
      yield* ledger.appendAll(rows)
      latencies.push(performance.now() - t0)
    }
    return { latencies, start, end: wallNow() }
  }).pipe(Effect.provide(storeLayer(t)))

/** One approver: the compare-and-swap approval of plan `planId`; "won" or the loser's code. */
const approver = (t: Target, a: number, planId: string) =>
  Effect.gen(function* () {
    const outcome = yield* Effect.either(approveAs(planId, a, "bench"))
    return Either.isRight(outcome) ? "won" : (outcome.left as { code?: string }).code ?? "failed"
  }).pipe(Effect.provide(PlanStore.layer(mkdtempSync(join(tmpdir(), "pcli-bench-approver-")))), Effect.provide(storeLayer(t)), Effect.provide(NodeContext.layer))

// ---- the parent --------------------------------------------------------------------------------

function child(env: Record<string, string>): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [self], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "inherit"] })
    let out = ""
    p.stdout.on("data", (d) => (out += String(d)))
    p.on("exit", (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`bench child exited ${code}`))))
  })
}

const run = <A>(t: Target, body: Effect.Effect<A, unknown, Ledger | SqlClient.SqlClient>) => Effect.runPromise(Effect.provide(body, storeLayer(t)))

async function freshTarget(backend: Backend, name: string): Promise<Target> {
  const t = { backend, path: join(mkdtempSync(join(tmpdir(), "pcli-bench-state-")), "state.sqlite"), schema: `bench_${name}_${process.pid}` }
  if (backend === "postgres") await run(t, Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(`DROP SCHEMA IF EXISTS "${t.schema}" CASCADE`)))
  await run(t, Effect.void)
  return t
}

async function dropTarget(t: Target) {
  if (t.backend === "postgres") await run(t, Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(`DROP SCHEMA IF EXISTS "${t.schema}" CASCADE`)))
}

/** The chain after the writers: rows, links that do not recompute, forks (a seq or hash twice, or a gap), verify. */
const chainCheck = (t: Target) =>
  run(
    t,
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const ledger = yield* Ledger
      const [c] = yield* sql<{ n: number; seqs: number; hashes: number; max: number }>`SELECT count(*) AS n, count(DISTINCT seq) AS seqs, count(DISTINCT row_hash) AS hashes, max(seq) AS max FROM ledger`
      const report = yield* ledger.verify
      return { rows: Number(c!.n), forks: Number(c!.n) - Number(c!.hashes) + (Number(c!.max) - Number(c!.seqs)), broken: report.intact ? 0 : 1, verified: report.intact }
    })
  )

async function appendRun(backend: Backend, batch: number) {
  const t = await freshTarget(backend, `append${batch}`)
  let freezeReads: Array<number> = []
  let writing = true
  const reads =
    backend === "postgres"
      ? run(
          t,
          Effect.gen(function* () {
            const ledger = yield* Ledger
            while (writing) {
              const t0 = performance.now()
              yield* ledger.list({ kinds: ["freeze", "unfreeze"] })
              freezeReads.push(performance.now() - t0)
              yield* Effect.sleep("5 millis")
            }
          })
        )
      : Promise.resolve()
  const t0 = performance.now()
  const per = Math.ceil(ROWS / WRITERS)
  const results = (await Promise.all(
    Array.from({ length: WRITERS }, (_, w) =>
      child({ BENCH_STATE_ROLE: "writer", BENCH_STATE_TARGET: JSON.stringify(t), BENCH_STATE_INDEX: String(w), BENCH_STATE_COUNT: String(Math.min(per, ROWS - w * per)), BENCH_STATE_BATCH: String(batch) })
    )
  )) as Array<{ latencies: Array<number>; start: number; end: number }>
  const seconds = (performance.now() - t0) / 1000
  // The appends alone: from the first writer's first append to the last writer's last (no process start, no store open).
  const appending = (Math.max(...results.map((r) => r.end)) - Math.min(...results.map((r) => r.start))) / 1000
  writing = false
  await reads
  const latencies = results.flatMap((r) => r.latencies)
  const check = await chainCheck(t)
  await dropTarget(t)
  return { backend, batch, seconds, appending, latencies, check, freezeReads }
}

async function approvalRace() {
  const t = await freshTarget("postgres", "approve")
  const planId = "f".repeat(64)
  const outcomes = (await Promise.all(
    Array.from({ length: WRITERS }, (_, a) => child({ BENCH_STATE_ROLE: "approver", BENCH_STATE_TARGET: JSON.stringify(t), BENCH_STATE_INDEX: String(a), BENCH_STATE_PLAN: planId }))
  )) as Array<string>
  const approvals = await run(t, Effect.flatMap(Ledger, (l) => l.count({ kinds: ["approval"] })))
  await dropTarget(t)
  return { winners: outcomes.filter((o) => o === "won").length, losers: outcomes.filter((o) => o === "approval-taken").length, approvals }
}

/** audit --verify's walk over `VERIFY_ROWS` rows seeded straight into a pg store, chained as appends chain them. */
async function verifyThroughput() {
  const t = await freshTarget("postgres", "verify")
  const seconds = await run(
    t,
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const ledger = yield* Ledger
      let previous = "0".repeat(64)
      const base = Date.now() - VERIFY_ROWS
      for (let start = 0; start < VERIFY_ROWS; start += 2000) {
        const rows = []
        for (let n = start; n < Math.min(VERIFY_ROWS, start + 2000); n++) {
          const r = row(n % WRITERS, n)
          const timestamp = new Date(base + n).toISOString()
          const stored = { ...r, decision_ref: `${timestamp}|${r.plan_id}|${r.model}`, timestamp, principal_id_verified: false as const, target_principal: null }
          previous = rowHash(previous, stored)
          rows.push({ seq: n + 1, ...stored, principal_id_verified: 0, row_hash: previous })
        }
        yield* sql`INSERT INTO ledger ${sql.insert(rows)}`
      }
      yield* sql`UPDATE ledger_head SET seq = ${VERIFY_ROWS}, row_hash = ${previous}, timestamp = ${new Date().toISOString()} WHERE id = 1`
      const t0 = performance.now()
      const report = yield* ledger.verify
      if (!report.intact || report.rows !== VERIFY_ROWS) throw new Error(`verify did not pass: ${JSON.stringify(report)}`)
      return (performance.now() - t0) / 1000
    })
  )
  await dropTarget(t)
  return seconds
}

async function main() {
  const runs = []
  for (const backend of ["sqlite", "postgres"] as const) for (const batch of [1, BATCH]) runs.push(await appendRun(backend, batch))
  const sqliteSingle = runs[0]!
  console.log(`${WRITERS} processes append ${ROWS} ledger rows to one store (rows per append: 1 = single, ${BATCH} = batched)`)
  console.log("rows/s: from spawning the writers to the last one's exit; rows/s appending: first append to last (no process start or store open)\n")
  printTable(
    ["backend", "rows/append", "rows", "rows/s", "vs sqlite single", "rows/s appending", "vs sqlite single", "p50 ms/append", "p99 ms/append", "broken links", "forks", "audit --verify"],
    runs.map((r) => [
      r.backend,
      r.batch,
      r.check.rows,
      Math.round(ROWS / r.seconds),
      `${(sqliteSingle.seconds / r.seconds).toFixed(2)}x`,
      Math.round(ROWS / r.appending),
      `${(sqliteSingle.appending / r.appending).toFixed(2)}x`,
      percentile(r.latencies, 50).toFixed(2),
      percentile(r.latencies, 99).toFixed(2),
      r.check.broken,
      r.check.forks,
      r.check.verified ? "ok" : "BROKEN"
    ])
  )
  const reads = runs.filter((r) => r.backend === "postgres").flatMap((r) => r.freezeReads)
  const race = await approvalRace()
  const verifySeconds = await verifyThroughput()
  console.log("")
  const p99 = percentile(runs[2]!.latencies, 99)
  const verdict = (ok: boolean) => (ok ? "ok" : "MISSED")
  printTable(
    ["measure", "value", "target", "verdict"],
    [
      ["freeze reads while 8 pg writers run: p50 / p99 ms", `${percentile(reads, 50).toFixed(2)} / ${percentile(reads, 99).toFixed(2)} (${reads.length} reads)`, "-", "-"],
      ["8 concurrent approvals of one plan: winners / approval-taken / approval rows", `${race.winners} / ${race.losers} / ${race.approvals}`, "1 / 7 / 1", verdict(race.winners === 1 && race.losers === 7 && race.approvals === 1)],
      [`audit --verify on pg, ${VERIFY_ROWS} rows: rows/s`, Math.round(VERIFY_ROWS / verifySeconds), ">= 200000", verdict(VERIFY_ROWS / verifySeconds >= 200_000)],
      ["pg single appends across 8 writers: rows/s appending (incl. process start)", `${Math.round(ROWS / runs[2]!.appending)} (${Math.round(ROWS / runs[2]!.seconds)})`, ">= 500", verdict(ROWS / runs[2]!.appending >= 500)],
      ["pg single append p99 ms", p99.toFixed(2), "<= 50", verdict(p99 <= 50)]
    ]
  )
  const bad = runs.some((r) => r.check.rows !== ROWS || r.check.broken !== 0 || r.check.forks !== 0 || !r.check.verified) || race.winners !== 1 || race.approvals !== 1
  if (bad) process.exitCode = 1
}

// ---- dispatch: a child runs its role, the parent the whole bench ---------------------------------

const role = process.env["BENCH_STATE_ROLE"]
if (role !== undefined) {
  const t = JSON.parse(process.env["BENCH_STATE_TARGET"]!) as Target
  const n = Number(process.env["BENCH_STATE_INDEX"])
  const program: Effect.Effect<unknown, unknown> =
    role === "writer"
      ? writer(t, n, Number(process.env["BENCH_STATE_COUNT"]), Number(process.env["BENCH_STATE_BATCH"]))
      : approver(t, n, process.env["BENCH_STATE_PLAN"]!)
  Effect.runPromise(program).then(
    (out) => process.stdout.write(JSON.stringify(out)),
    (e) => {
      process.stderr.write(`${String(e)}\n`)
      process.exitCode = 1
    }
  )
} else {
  await main()
}
