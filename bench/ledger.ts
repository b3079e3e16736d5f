// The reports over a 1,000,000-row ledger, each through the real binary beside a baseline taken in
// the same run: `pcli state info` on the same store (start-up + open) for wall time, and an
// in-process full decoded scan for throughput. Peak RSS per process from /usr/bin/time.
import { NodeContext } from "@effect/platform-node"
import { Effect, Layer, Stream } from "effect"
import { spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"

import { Ledger } from "../src/services/Ledger/Ledger"
import * as LedgerSqlite from "../src/services/Ledger/sqlite"
import * as StateStore from "../src/services/StateStore/StateStore"
import { median, printTable, seedChainedLedger } from "./support"

const ROWS = Number(process.env["BENCH_LEDGER_ROWS"] ?? 1_000_000)
const BIN = resolve("dist/pcli.cjs")
const dir = mkdtempSync(join(tmpdir(), "pcli-bench-ledger-"))
const path = join(dir, "state.sqlite")
const DAY = 24 * 3600 * 1000
const end = Date.now() - 60_000
const start = end - 300 * DAY
const step = (end - start) / ROWS // 300 days of decisions, ending now

const POLICY = (effect: string) => `[policy]
version = 1
default_agent_effect = "require_review"

[[policy.rules]]
principal = "agent"
capability = "apply"
effect = "${effect}"
scope = { models = ["m1*"] }

[[policy.rules]]
principal = "agent"
capability = "apply"
effect = "deny"
scope = { models = ["m99*"] }
`

const seed = seedChainedLedger(ROWS, (n) => {
  const ts = new Date(start + n * step).toISOString()
  return {
    decision_ref: `${ts}|plan-${n % 5000}|m${n % 1000}|${n}`,
    kind: n % 50 === 0 ? "freeze" : "evaluation",
    timestamp: ts,
    principal: n % 2 === 0 ? "agent" : "human",
    principal_id: n % 97 === 0 ? null : `p${n % 100}`,
    principal_id_source: n % 97 === 0 ? null : "flag",
    capability: "apply",
    model: `m${n % 1000}`,
    effect: n % 3 === 0 ? "require_review" : "allow",
    rule_id: n % 10,
    plan_id: `plan-${n % 5000}`,
    reason: "bench"
  }
})

/** One run of the binary: wall ms and peak RSS (MB), stdout discarded. */
const runBin = (args: ReadonlyArray<string>) => {
  const t0 = performance.now()
  const r = spawnSync("/usr/bin/time", ["-f", "%M", process.execPath, BIN, ...args, "--state-path", path], {
    cwd: dir,
    stdio: ["ignore", "ignore", "pipe"],
    encoding: "utf8",
    maxBuffer: 1 << 20
  })
  const ms = performance.now() - t0
  if (r.status !== 0) throw new Error(`pcli ${args.join(" ")} exited ${r.status}: ${r.stderr}`)
  const rssKb = Number(r.stderr.trim().split("\n").pop())
  return { ms, rssMb: rssKb / 1024 }
}

const RUNS = Number(process.env["BENCH_LEDGER_RUNS"] ?? 3)
const best = (args: ReadonlyArray<string>, runs = RUNS) => {
  const results = Array.from({ length: runs }, () => runBin(args))
  return { ms: median(results.map((r) => r.ms)), rssMb: Math.max(...results.map((r) => r.rssMb)) }
}

const program = Effect.gen(function* () {
  const t0 = performance.now()
  yield* seed
  console.log(`seeded ${ROWS.toLocaleString()} rows in ${((performance.now() - t0) / 1000).toFixed(1)} s`)
  const t1 = performance.now()
  const scanned = yield* Effect.flatMap(Ledger, (l) => Stream.runCount(l.query({})))
  const scanMs = performance.now() - t1
  console.log(`baseline: in-process full decoded scan ${scanned.toLocaleString()} rows in ${scanMs.toFixed(0)} ms\n`)
})

const main = async () => {
  await Effect.runPromise(
    program.pipe(Effect.provide(LedgerSqlite.layer.pipe(Layer.provideMerge(StateStore.layer({ path, createParent: true }, "write")), Layer.provide(NodeContext.layer))))
  )
  writeFileSync(join(dir, "pcli.toml"), POLICY("require_review"))
  writeFileSync(join(dir, "proposed.toml"), POLICY("allow"))
  mkdirSync(join(dir, "models"), { recursive: true })

  const baseline = best(["state", "info"])
  const cases: ReadonlyArray<readonly [string, ReadonlyArray<string>, number, (ms: number) => string]> = [
    ["audit --actor p42 --since 7d", ["audit", "--actor", "p42", "--since", "7d", "--output", "json"], 1000, () => ""],
    ["audit --scorecard", ["audit", "--scorecard", "--output", "json"], 2000, () => ""],
    ["audit --verify", ["audit", "--verify"], 1000 * ROWS / 500_000, (ms) => `${Math.round(ROWS / (ms / 1000)).toLocaleString()} rows/s (≥ 500,000)`],
    ["policy replay --config proposed.toml", ["policy", "replay", "--config", "proposed.toml", "--output", "json"], 10_000, () => ""],
    ["audit (every row, JSON streamed)", ["audit", "--output", "json"], Number.POSITIVE_INFINITY, (ms) => `${Math.round(ROWS / (ms / 1000)).toLocaleString()} rows/s`],
    ["brief --since 7d", ["brief", "--since", "7d", "--output", "json"], Number.POSITIVE_INFINITY, () => ""]
  ]
  const rows: Array<Array<string>> = [["state info (baseline)", baseline.ms.toFixed(0), "1.00", baseline.rssMb.toFixed(0), "-", ""]]
  let peak = baseline.rssMb
  let failures = 0
  for (const [name, args, targetMs, extra] of cases) {
    const r = best(args)
    peak = Math.max(peak, r.rssMb)
    const ok = r.ms <= targetMs && r.rssMb <= 300
    if (!ok) failures++
    rows.push([name, r.ms.toFixed(0), (r.ms / baseline.ms).toFixed(2), r.rssMb.toFixed(0), Number.isFinite(targetMs) ? `≤ ${targetMs.toFixed(0)} ms${ok ? "" : " MISSED"}` : "-", extra(r.ms)])
  }
  printTable([`command (median of ${RUNS})`, "ms", "× baseline", "peak RSS MB", "target", "throughput"], rows)
  console.log(`\npeak RSS across all runs ${peak.toFixed(0)} MB (target ≤ 300 MB)`)
  if (failures > 0) process.exitCode = 1
}

main().catch((e) => {
  console.error(e)
  process.exit(1)
})
