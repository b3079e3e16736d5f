/**
 * Discover against the connector-sync emulator: 50 connectors, 50 ms per request.
 * Rows: sequential baseline (concurrency 1), cold concurrent fetch (default options, file
 * budget, fresh cache), warm (cache hit), and cold with injected 429s. Median of 3 runs.
 * Bundle: npx esbuild bench/discover.ts --bundle --platform=node --format=esm --packages=external --outfile=dist/bench/discover.mjs
 */
import { NodeContext, NodeHttpClient } from "@effect/platform-node"
import { Effect, Layer, Logger, LogLevel, Schema } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { performance } from "node:perf_hooks"
import { EltAdapter } from "../src/schemas/adapters"
import { discover } from "../src/services/Discover/Discover"
import * as DiscoverCache from "../src/services/DiscoverCache/DiscoverCache"
import * as EltApi from "../src/services/EltApi/EltApi"
import * as RateBudget from "../src/services/EltApi/RateBudget"
import * as EventBus from "../src/services/EventBus/EventBus"
import { addTenant, makeTenant, startEltEmulator } from "../test/support/eltEmulator"

const CONNECTORS = 50
const LATENCY_MS = 50
const RUNS = 3

interface Row {
  readonly scenario: string
  readonly ms: number
  readonly calls: number
  readonly throttled: number
}

const main = async () => {
  const emulator = await startEltEmulator({ latencyMs: LATENCY_MS })
  const tenant = addTenant(emulator, makeTenant("bench-key", "bench_dest", CONNECTORS))
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "pcli-bench-discover-"))
  let runId = 0

  const adapterWith = (fileRoot: string) =>
    Schema.decodeUnknownSync(EltAdapter)({
      type: "elt",
      api_key: tenant.apiKey,
      api_secret: tenant.apiSecret,
      destination_id: tenant.destinationId,
      base_url: emulator.baseUrl,
      cache: { backend: "file", file_root: fileRoot }
    })

  const once = async (options: EltApi.EltApiOptions, fileRoot: string, noCache: boolean) => {
    const layer = Layer.mergeAll(
      EltApi.layerWith(options).pipe(
        Layer.provide(RateBudget.layerAt(path.join(scratch, `budget-${runId++}`))),
        Layer.provide(NodeHttpClient.layerUndici)
      ),
      DiscoverCache.layer,
      EventBus.layer
    ).pipe(Layer.provideMerge(NodeContext.layer))
    const calls = emulator.total()
    const throttled = emulator.throttled
    const started = performance.now()
    await Effect.runPromise(
      discover({ adapterName: "bench", adapter: adapterWith(fileRoot), noCache }).pipe(
        Effect.provide(layer),
        Logger.withMinimumLogLevel(LogLevel.Error)
      )
    )
    return { ms: performance.now() - started, calls: emulator.total() - calls, throttled: emulator.throttled - throttled }
  }

  const median = async (scenario: string, run: (i: number) => Promise<{ ms: number; calls: number; throttled: number }>): Promise<Row> => {
    const results = []
    for (let i = 0; i < RUNS; i++) results.push(await run(i))
    results.sort((a, b) => a.ms - b.ms)
    const mid = results[Math.floor(results.length / 2)] ?? { ms: 0, calls: 0, throttled: 0 }
    return { scenario, ...mid }
  }

  const fresh = () => fs.mkdtempSync(path.join(scratch, "cache-"))
  const rows: Array<Row> = []
  // Discarded warm-up so JIT compilation does not favour or penalise the first scenario.
  await once(EltApi.defaultEltApiOptions, fresh(), false)
  rows.push(await median("sequential baseline (concurrency 1, cold)", () => once({ ...EltApi.defaultEltApiOptions, concurrency: 1 }, fresh(), false)))
  rows.push(await median(`cold (concurrency ${EltApi.defaultEltApiOptions.concurrency}, file budget)`, () => once(EltApi.defaultEltApiOptions, fresh(), false)))
  const warmRoot = fresh()
  await once(EltApi.defaultEltApiOptions, warmRoot, false)
  rows.push(await median("warm (file cache hit)", () => once(EltApi.defaultEltApiOptions, warmRoot, false)))
  rows.push(
    await median("cold, 3×429 injected (Retry-After: 0)", () => {
      emulator.inject429(3, "0")
      return once(EltApi.defaultEltApiOptions, fresh(), false)
    })
  )

  const baseline = rows[0]?.ms ?? 1
  const header = ["scenario", "median ms", "vs sequential", "API calls", "429s", "target"]
  // Targets: cold ≤ 25 % of the sequential baseline; warm makes no API call.
  const target = (i: number, r: Row) =>
    i === 1 ? `<= 25% ${r.ms / baseline <= 0.25 ? "ok" : "MISSED"}` : i === 2 ? `0 API calls ${r.calls === 0 ? "ok" : "MISSED"}` : "-"
  const body = rows.map((r, i) => [r.scenario, r.ms.toFixed(1), `${((r.ms / baseline) * 100).toFixed(1)}%`, String(r.calls), String(r.throttled), target(i, r)])
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => (b[i] ?? "").length)))
  const line = (cells: ReadonlyArray<string>) => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(" | ")} |`
  const out = [
    `discover bench: ${CONNECTORS} connectors, ${LATENCY_MS} ms per request, median of ${RUNS}`,
    line(header),
    `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`,
    ...body.map(line),
    "",
    `targets: cold ≤ 25% of sequential → ${(((rows[1]?.ms ?? 0) / baseline) * 100).toFixed(1)}%; warm API calls = 0 → ${rows[2]?.calls}`
  ]
  process.stdout.write(`${out.join("\n")}\n`)
  await emulator.close()
  fs.rmSync(scratch, { recursive: true, force: true })
}

main().catch((e) => {
  process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`)
  process.exit(1)
})
