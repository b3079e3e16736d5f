// The reports over a 1,000,000-row ledger, each through the real binary beside a baseline taken in
// the same run: `pcli state info` on the same store (start-up + open) for wall time, and an
// in-process full decoded scan for throughput. Peak RSS per process from /usr/bin/time. Before
// those, in-process: `audit --verify`'s fast walk against its reference (what it saves, as a ratio),
// and the two BLAKE3 libraries on ledger rows and artifact bytes. BENCH_LEDGER_IN_PROCESS_ONLY=1
// prints only these. Rounds: BENCH_LEDGER_RUNS (the binary's commands, interleaved; default 5: issue 37's
// audit --verify figure), BENCH_LEDGER_VERIFY_RUNS (the in-process twins, default 3); rows: BENCH_LEDGER_ROWS.
import { NodeContext } from "@effect/platform-node"
import { Effect, Layer, Stream } from "effect"
import { spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { loadavg, tmpdir } from "node:os"
import { join, resolve } from "node:path"

import { blake3Hex, createBlake3Hasher } from "../src/platform/blake3"
import { canonicalRow, GENESIS_HASH } from "../src/services/Ledger/chain"
import { Ledger } from "../src/services/Ledger/Ledger"
import { chainVerifier } from "../src/services/Ledger/verify"
import { DEFAULT_PARALLEL } from "../src/services/Ledger/verifyParallel"
import * as LedgerSqlite from "../src/services/Ledger/sqlite"
import * as StateStore from "../src/services/StateStore/StateStore"
import { median, printTable, type SeedRow, seedChainedLedger, spread } from "./support"

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

const rowAt = (n: number): SeedRow => {
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
}
const seed = seedChainedLedger(ROWS, rowAt)
// The in-process twins (three walks of 1M rows a round) are the slow part under load, and not a target: 3 rounds.
const VERIFY_RUNS = Math.max(1, Number(process.env["BENCH_LEDGER_VERIFY_RUNS"] ?? 3))

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

const RUNS = Math.max(1, Number(process.env["BENCH_LEDGER_RUNS"] ?? 5))

const program = Effect.gen(function* () {
  const t0 = performance.now()
  yield* seed
  console.log(`seeded ${ROWS.toLocaleString()} rows in ${((performance.now() - t0) / 1000).toFixed(1)} s`)
  const t1 = performance.now()
  const scanned = yield* Effect.flatMap(Ledger, (l) => Stream.runCount(l.query({})))
  const scanMs = performance.now() - t1
  console.log(`baseline: in-process full decoded scan ${scanned.toLocaleString()} rows in ${scanMs.toFixed(0)} ms\n`)
  yield* verifyTwins
  yield* Effect.promise(blake3Libraries)
})

const ratio = (reference: number, twin: number) => `${(reference / twin).toFixed(2)}× (saves ${Math.round((1 - twin / reference) * 100)}%)`

/** `audit --verify`'s twins in this process on the seeded store: the reference walk, the fast walk in-process only, and with workers. */
const verifyTwins = Effect.gen(function* () {
  const verifier = yield* chainVerifier
  const walks = [
    ["reference (sequential, JS canonical rows)", verifier.verifySequential],
    ["fast walk, this thread only", verifier.verify({ ...DEFAULT_PARALLEL, maxWorkers: 1 })],
    [`fast walk, default (up to ${DEFAULT_PARALLEL.maxWorkers} threads)`, verifier.verify(DEFAULT_PARALLEL)]
  ] as const
  const samples = walks.map(() => [] as Array<number>)
  // Rounds interleaved: a shared machine drifts.
  for (let r = 0; r < VERIFY_RUNS; r++) {
    for (const [k, [, walk]] of walks.entries()) {
      const t = performance.now()
      const report = yield* walk
      samples[k]!.push(performance.now() - t)
      if (!report.intact || report.rows !== ROWS) throw new Error(`verify found the seeded chain broken: ${JSON.stringify(report)}`)
    }
  }
  const reference = median(samples[0]!)
  console.log(`audit --verify in-process on ${ROWS.toLocaleString()} rows (median of ${VERIFY_RUNS})\n`)
  printTable(
    ["walk", "ms", "spread ms", "rows/s", "reference ÷ walk"],
    walks.map(([name], k) => {
      const ms = median(samples[k]!)
      return [name, ms.toFixed(0), spread(samples[k]!), Math.round(ROWS / (ms / 1000)).toLocaleString(), k === 0 ? "-" : ratio(reference, ms)]
    })
  )
  console.log("")
})

/** The two BLAKE3 libraries on pcli's two uses: chaining many small ledger rows, and artifact bytes. Hex digests, as stored. */
const blake3Libraries = async () => {
  const hasher = await createBlake3Hasher()
  const libraries = [
    ["@noble/hashes", blake3Hex],
    ["hash-wasm", (bytes: Uint8Array) => hasher.init().update(bytes).digest("hex")]
  ] as const
  const encoder = new TextEncoder()
  const rows = Array.from({ length: 100_000 }, (_, n) => encoder.encode(GENESIS_HASH + canonicalRow({ ...rowAt(n), principal_id_verified: false, target_principal: null })))
  const artifact = new Uint8Array(8 << 20).map((_, i) => Math.imul(i, 2654435761) >>> 24)
  const uses = [
    [`${rows.length.toLocaleString()} ledger rows (~${Math.round(rows[0]!.length)} bytes each)`, rows],
    ["artifact bytes (8 MiB × 4)", [artifact, artifact, artifact, artifact]]
  ] as const
  for (const [, inputs] of uses) {
    if (libraries[0][1](inputs[0]) !== libraries[1][1](inputs[0])) throw new Error("the BLAKE3 libraries disagree")
  }
  const table: Array<Array<string>> = []
  for (const [use, inputs] of uses) {
    const samples = libraries.map(() => [] as Array<number>)
    for (let r = 0; r < 5; r++) {
      for (const [k, [, hex]] of libraries.entries()) {
        const t = performance.now()
        for (const bytes of inputs) hex(bytes)
        samples[k]!.push(performance.now() - t)
      }
    }
    const [noble, wasm] = samples.map(median) as [number, number]
    table.push([use, noble.toFixed(0), wasm.toFixed(0), ratio(noble, wasm)])
  }
  console.log("BLAKE3 libraries (median of 5, interleaved)\n")
  printTable(["use", "@noble/hashes ms", "hash-wasm ms", "noble ÷ hash-wasm"], table)
  console.log("")
}

const main = async () => {
  await Effect.runPromise(
    program.pipe(Effect.provide(LedgerSqlite.layer.pipe(Layer.provideMerge(StateStore.layer({ path, createParent: true }, "write")), Layer.provide(NodeContext.layer))))
  )
  // The in-process tables alone (the twins, the BLAKE3 libraries), without the binary's.
  if (process.env["BENCH_LEDGER_IN_PROCESS_ONLY"] !== undefined) return
  writeFileSync(join(dir, "pcli.toml"), POLICY("require_review"))
  writeFileSync(join(dir, "proposed.toml"), POLICY("allow"))
  mkdirSync(join(dir, "models"), { recursive: true })

  const cases: ReadonlyArray<readonly [string, ReadonlyArray<string>, number, (ms: number) => string]> = [
    ["audit --actor p42 --since 7d", ["audit", "--actor", "p42", "--since", "7d", "--output", "json"], 1000, () => ""],
    ["audit --scorecard", ["audit", "--scorecard", "--output", "json"], 2000, () => ""],
    ["audit --verify", ["audit", "--verify"], 1000 * ROWS / 500_000, (ms) => `${Math.round(ROWS / (ms / 1000)).toLocaleString()} rows/s (target ≥ 500,000)`],
    ["policy replay --config proposed.toml", ["policy", "replay", "--config", "proposed.toml", "--output", "json"], 10_000, () => ""],
    ["audit (every row, JSON streamed)", ["audit", "--output", "json"], Number.POSITIVE_INFINITY, (ms) => `${Math.round(ROWS / (ms / 1000)).toLocaleString()} rows/s`],
    ["brief --since 7d", ["brief", "--since", "7d", "--output", "json"], Number.POSITIVE_INFINITY, () => ""]
  ]
  // Rounds interleaved: the baseline and every command once per round, so a burst of load hits them alike.
  const all: ReadonlyArray<ReadonlyArray<string>> = [["state", "info"], ...cases.map(([, args]) => args)]
  const samples = all.map(() => [] as Array<{ ms: number; rssMb: number }>)
  for (let r = 0; r < RUNS; r++) all.forEach((args, c) => samples[c]!.push(runBin(args)))
  const stats = (c: number) => {
    const ms = samples[c]!.map((x) => x.ms)
    return { ms: median(ms), spread: spread(ms), rssMb: Math.max(...samples[c]!.map((x) => x.rssMb)), ratios: ms.map((x, k) => x / samples[0]![k]!.ms) }
  }
  const baseline = stats(0)
  const rows: Array<Array<string>> = [["state info (baseline)", baseline.ms.toFixed(0), baseline.spread, "1.00", "-", baseline.rssMb.toFixed(0), "-", ""]]
  let peak = baseline.rssMb
  cases.forEach(([name, , targetMs, extra], k) => {
    const r = stats(k + 1)
    peak = Math.max(peak, r.rssMb)
    const ok = r.ms <= targetMs && r.rssMb <= 300
    const throughput = extra(r.ms)
    const range = throughput.includes("rows/s") ? ` (runs ${spread(samples[k + 1]!.map((x) => ROWS / (x.ms / 1000)))})` : ""
    rows.push([name, r.ms.toFixed(0), r.spread, (r.ms / baseline.ms).toFixed(2), spread(r.ratios, 2), r.rssMb.toFixed(0), Number.isFinite(targetMs) ? `≤ ${targetMs.toFixed(0)} ms${ok ? " ok" : " MISSED"}` : "-", throughput + range])
  })
  console.log(`load average ${loadavg().map((l) => l.toFixed(1)).join(" ")}`)
  printTable([`command, ${ROWS.toLocaleString()} rows (median of ${RUNS}, interleaved)`, "ms", "spread ms", "× baseline", "per-round × spread", "peak RSS MB", "target", "throughput"], rows)
  // A missed target is a figure in the table (as in every bench), not a failed bench: the exit code is for errors.
  console.log(`\npeak RSS across all runs ${peak.toFixed(0)} MB (target ≤ 300 MB${peak <= 300 ? ", ok" : ", MISSED"})`)
}

main().catch((e) => {
  console.error(e)
  process.exit(1)
})
