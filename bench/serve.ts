// `pcli serve` under load: the built binary serves a project of 1,000 models (one run recorded) whose
// ledger holds 100,000 rows; autocannon (this process) drives each route for 10 s. Baseline:
// /api/v1/health, served by the same process. Then 100 clients hold /api/v1/events open.
import { NodeContext } from "@effect/platform-node"
import autocannon from "autocannon"
import { Effect, Layer } from "effect"
import { spawn, spawnSync } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import * as LedgerSqlite from "../src/services/Ledger/sqlite"
import * as StateStore from "../src/services/StateStore/StateStore"
import { printTable, seedChainedLedger } from "./support"

const ROWS = 100_000
const HOUR = 3_600_000
const BIN = resolve("dist/pcli.cjs")
const dir = mkdtempSync(join(tmpdir(), "pcli-bench-serve-"))
const project = join(dir, "demo")
spawnSync(process.execPath, [BIN, "playground", project], { stdio: "ignore" })
const storePath = join(project, "models", ".pcli-state.sqlite")
const MODELS = 1_000
// Chains of ten over the playground's raw_customers: 1,000 models beside its six.
for (let i = 0; i < MODELS; i++) {
  const name = `m${String(i).padStart(4, "0")}`
  const upstream = i % 10 === 0 ? "raw_customers" : `m${String(i - 1).padStart(4, "0")}`
  writeFileSync(join(project, "models", `${name}.sql`), `SELECT customer_id FROM ${upstream}\n`)
  writeFileSync(join(project, "models", `${name}.toml`), `name = "${name}"\n\n[target]\ncatalog = "warehouse"\nschema = "bench"\ntable = "${name}"\n\n[tags]\nlayer = "bench"\n`)
}
// One run recorded over every model (its outcome does not matter to the routes).
spawnSync(process.execPath, [BIN, "run"], { cwd: project, stdio: "ignore" })

// One decision an hour for 100,000 hours (about 11 years): `since=7d` selects the newest 168.
const seed = Effect.suspend(() => {
  const now = Date.now()
  return seedChainedLedger(ROWS, (n) => {
    const ts = new Date(now - (ROWS - n) * HOUR).toISOString()
    return {
      decision_ref: `${ts}|plan-${n % 5000}|m${n % 100}|${n}`,
      kind: n % 1000 === 0 ? "freeze" : "evaluation",
      timestamp: ts,
      principal: n % 2 === 0 ? "agent" : "human",
      principal_id: n % 97 === 0 ? null : `p${n % 20}`,
      principal_id_source: n % 97 === 0 ? null : "flag",
      capability: "apply",
      model: `m${n % 100}`,
      effect: n % 3 === 0 ? "deny" : "allow",
      rule_id: n % 10,
      plan_id: `plan-${n % 5000}`,
      reason: "bench"
    }
  })
})

const startServer = () =>
  new Promise<{ readonly url: string; readonly stop: () => Promise<void> }>((resolvePromise, reject) => {
    const child = spawn(process.execPath, [BIN, "serve", "--port", "0"], { cwd: project, stdio: ["ignore", "ignore", "pipe"] })
    let buffered = ""
    const onData = (d: Buffer) => {
      buffered += d.toString()
      const m = /listening on (http:\/\/\S+)/.exec(buffered)
      if (m === null) return
      // Request lines keep coming on stderr: drain them so the pipe never blocks the server.
      child.stderr.off("data", onData)
      child.stderr.resume()
      resolvePromise({ url: m[1]!, stop: () => new Promise((done) => (child.once("exit", () => done()), child.kill("SIGTERM"))) })
    }
    child.stderr.on("data", onData)
    child.once("exit", (code) => reject(new Error(`pcli serve exited ${code}: ${buffered}`)))
  })

const load = (url: string) =>
  new Promise<autocannon.Result>((done, fail) => {
    autocannon({ url, connections: 10, duration: 10 }, (err, result) => (err ? fail(err) : done(result)))
  })

const EVENT_CLIENTS = 100

/** Opens `n` event streams at once; counts those that got `ready` and were still open 2 s later. */
const holdEvents = async (url: string, n: number) => {
  const controller = new AbortController()
  const clients = await Promise.all(
    Array.from({ length: n }, async () => {
      const res = await fetch(`${url}/api/v1/events`, { signal: controller.signal })
      const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader()
      const first = await reader.read()
      let open = true
      void reader.closed.then(() => (open = false), () => (open = false))
      return { ready: first.value?.startsWith("event: ready") === true, open: () => open }
    })
  )
  await new Promise((done) => setTimeout(done, 2_000))
  const held = clients.filter((c) => c.ready && c.open()).length
  controller.abort()
  return held
}

const main = async () => {
  await Effect.runPromise(seed.pipe(Effect.provide(LedgerSqlite.layer.pipe(Layer.provideMerge(StateStore.layer(storePath, "write")), Layer.provide(NodeContext.layer)))))
  const server = await startServer()
  // Targets (issue 15): req/s at least, and p99 at most where one was named.
  const routes: ReadonlyArray<readonly [string, string, { readonly rps: number; readonly p99?: number } | undefined]> = [
    ["/api/v1/health (baseline)", "/api/v1/health", undefined],
    ["/api/v1/policy", "/api/v1/policy", { rps: 5000, p99: 10 }],
    ["/api/v1/audit?since=7d", "/api/v1/audit?since=7d", { rps: 500 }],
    ["/api/v1/runs (1,000 models)", "/api/v1/runs", { rps: 1000 }],
    ["/api/v1/models (1,000 models)", "/api/v1/models", { rps: 1000 }]
  ]
  const results: Array<readonly [string, autocannon.Result]> = []
  let held = 0
  try {
    for (const [name, path] of routes) results.push([name, await load(`${server.url}${path}`)])
    held = await holdEvents(server.url, EVENT_CLIENTS)
  } finally {
    await server.stop()
    // The project and its 100,000-row store (about 56 MB) go with the run.
    rmSync(dir, { recursive: true, force: true })
  }
  const base = results[0]![1].requests.average
  console.log(`ledger: ${ROWS.toLocaleString()} rows; 10 connections, 10 s per route\n`)
  printTable(
    ["route", "req/s", "p50 ms", "p99 ms", "non-2xx", "req/s vs baseline", "target", "verdict"],
    results.map(([name, r], k) => {
      const target = routes[k]![2]
      const met = target !== undefined && r.requests.average >= target.rps && (target.p99 === undefined || r.latency.p99 <= target.p99) && r.non2xx === 0
      return [
        name,
        Math.round(r.requests.average),
        r.latency.p50,
        r.latency.p99,
        r.non2xx,
        (r.requests.average / base).toFixed(2),
        target === undefined ? "-" : `>= ${target.rps.toLocaleString()} req/s${target.p99 === undefined ? "" : `, p99 <= ${target.p99} ms`}`,
        target === undefined ? "-" : met ? "ok" : "MISSED"
      ]
    })
  )
  console.log(`\n/api/v1/events: ${held} of ${EVENT_CLIENTS} clients got their ready event and stayed connected for 2 s (target ${EVENT_CLIENTS}: ${held === EVENT_CLIENTS ? "ok" : "MISSED"})`)
}

main().catch((e) => {
  console.error(e)
  process.exit(1)
})
