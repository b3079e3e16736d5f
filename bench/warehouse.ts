/**
 * Statements per second through the warehouse client (OAuth, keep-alive TLS) against the
 * loopback emulator, sequential vs 10 vs 100 in flight, and token requests per run.
 *
 *   npx esbuild bench/warehouse.ts --bundle --platform=node --format=esm --packages=external \
 *     --outfile=dist/bench/warehouse.mjs && node dist/bench/warehouse.mjs
 */
import { fork, type ChildProcess } from "node:child_process"
import { ConfigProvider, Effect, Layer, Redacted } from "effect"
import { layerFromAdapterWith, warehouseHttpClient } from "../src/services/Warehouse/remote"
import { Warehouse } from "../src/services/Warehouse/Warehouse"
import { REFRESH_MARGIN_MILLIS } from "../src/services/WarehouseAuth/WarehouseAuth"
import { type Route, startWarehouseEmulator } from "../test/support/warehouseEmulator"

const CLIENT_ID = "bench-client"
const CLIENT_SECRET = "bench-secret"

interface Row {
  readonly mode: string
  readonly statements: number
  readonly seconds: number
  readonly perSecond: number
  readonly tokenRequests: number
  readonly expiryWindows: number
}

const main = async () => {
  const runs: ReadonlyArray<{ mode: string; concurrency: number; statements: number; lifetime: number }> = [
    { mode: "sequential", concurrency: 1, statements: 300, lifetime: 3600 },
    { mode: "10 in flight", concurrency: 10, statements: 1000, lifetime: 3600 },
    { mode: "100 in flight", concurrency: 100, statements: 2000, lifetime: 3600 },
    // 62 s tokens leave a 2 s fresh window (60 s margin): several refreshes inside one run.
    { mode: "100 in flight, 62s tokens", concurrency: 100, statements: 2000, lifetime: 62 }
  ]
  const rows: Array<Row> = []
  for (const run of runs) {
    const emulator = await startEmulatorProcess(run.lifetime)
    const layer = layerFromAdapterWith("bench", {
      type: "warehouse",
      host: emulator.host,
      http_path: emulator.httpPath,
      client_id: CLIENT_ID,
      client_secret: Redacted.make(CLIENT_SECRET)
    }).pipe(
      Layer.provide(warehouseHttpClient({ ca: emulator.caPem })),
      Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map())))
    )
    const program = Effect.gen(function* () {
      const warehouse = yield* Warehouse
      yield* warehouse.execute("SELECT 0") // warm-up: TLS session and the first token
      const started = performance.now()
      yield* Effect.forEach(
        Array.from({ length: run.statements }, (_, i) => i),
        (i) => warehouse.execute(`SELECT ${i} AS i`),
        { concurrency: run.concurrency, discard: true }
      )
      return (performance.now() - started) / 1000
    })
    const seconds = await Effect.runPromise(program.pipe(Effect.provide(layer)))
    const freshWindow = run.lifetime - REFRESH_MARGIN_MILLIS / 1000
    rows.push({
      mode: run.mode,
      statements: run.statements,
      seconds,
      perSecond: run.statements / seconds,
      tokenRequests: await emulator.count("token"),
      expiryWindows: Math.ceil(seconds / freshWindow)
    })
    await emulator.close()
  }
  const baseline = rows[0]!.perSecond
  const header = ["mode", "statements", "seconds", "stmts/s", "vs sequential", "token requests", "expiry windows"]
  const body = rows.map((r) => [
    r.mode,
    String(r.statements),
    r.seconds.toFixed(2),
    r.perSecond.toFixed(0),
    `${(r.perSecond / baseline).toFixed(2)}x`,
    String(r.tokenRequests),
    String(r.expiryWindows)
  ])
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)))
  const line = (cells: ReadonlyArray<string>) => "| " + cells.map((c, i) => c.padEnd(widths[i]!)).join(" | ") + " |"
  console.log(line(header))
  console.log("|" + widths.map((w) => "-".repeat(w + 2)).join("|") + "|")
  for (const b of body) console.log(line(b))
  console.log("(token requests include the warm-up statement's first token; the emulator runs in its own process)")
}

/** The emulator in a child process, so client and server do not share one event loop. */
const startEmulatorProcess = (lifetime: number) =>
  new Promise<{
    host: string
    httpPath: string
    caPem: string
    count: (route: Route) => Promise<number>
    close: () => Promise<void>
  }>((resolve) => {
    const child: ChildProcess = fork(process.argv[1]!, ["--emulator", String(lifetime)], { stdio: "inherit" })
    const replies: Array<(value: number) => void> = []
    child.on("message", (message: { type: string; host?: string; httpPath?: string; caPem?: string; value?: number }) => {
      if (message.type === "count") replies.shift()?.(message.value ?? 0)
      if (message.type === "ready") {
        resolve({
          host: message.host ?? "",
          httpPath: message.httpPath ?? "",
          caPem: message.caPem ?? "",
          count: (route) =>
            new Promise((reply) => {
              replies.push(reply)
              child.send({ type: "count", route })
            }),
          close: () =>
            new Promise((done) => {
              child.once("exit", () => done())
              child.send({ type: "close" })
            })
        })
      }
    })
  })

const serveEmulator = async (lifetime: number) => {
  const emulator = await startWarehouseEmulator({ clients: { [CLIENT_ID]: CLIENT_SECRET }, tokenLifetimeSeconds: lifetime })
  process.on("message", (message: { type: string; route?: Route }) => {
    if (message.type === "count") process.send?.({ type: "count", value: emulator.count(message.route ?? "unknown") })
    if (message.type === "close") void emulator.close().then(() => process.exit(0))
  })
  process.send?.({ type: "ready", host: emulator.host, httpPath: emulator.httpPath, caPem: emulator.certificate.caPem })
}

const emulatorFlag = process.argv.indexOf("--emulator")
;(emulatorFlag >= 0 ? serveEmulator(Number(process.argv[emulatorFlag + 1])) : main()).catch((error: unknown) => {
  console.error(error)
  process.exitCode = 1
})
