import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { afterAll, beforeAll } from "vitest"
import type { WarehouseAdapter } from "../../src/schemas/adapters"
import { layerFromAdapterWith } from "../../src/services/Warehouse/remote"
import { retryTransient } from "../../src/services/Warehouse/retry"
import { Warehouse } from "../../src/services/Warehouse/Warehouse"
import { WarehouseStatements } from "../../src/services/WarehouseClient/statements"
import { generateLoopbackCertificate, type LoopbackCertificate } from "../support/tls"
import { startWarehouseEmulator, type WarehouseEmulator } from "../support/warehouseEmulator"
import { adapterFor, captureLogs, captureSpans, CLIENT_ID, CLIENT_SECRET, envLayer, fastRetry, httpClientTrusting, PAT } from "./fixtures"

let certificate: LoopbackCertificate
let emulator: WarehouseEmulator

beforeAll(async () => {
  certificate = await generateLoopbackCertificate()
  emulator = await startWarehouseEmulator({ personalTokens: [PAT], clients: { [CLIENT_ID]: CLIENT_SECRET }, certificate })
})
afterAll(() => emulator.close())

const WRONG_SECRET = "another-secret-that-must-not-leak-77"
const ENV_TOKEN = "dapi-from-the-environment-9999"

describe("secrets stay redacted", () => {
  it.live("no token or secret in error messages, error JSON, logs or span attributes", () => {
    const logs = captureLogs()
    const spans = captureSpans()
    const captured: Array<string> = []
    const capture = (error: unknown) =>
      Effect.sync(() => captured.push(String(error), JSON.stringify(error), (error as Error).message ?? ""))

    const stack = (adapter: WarehouseAdapter, env: Record<string, string> = {}) =>
      layerFromAdapterWith("wh", adapter).pipe(
        Layer.provide(httpClientTrusting(certificate.caPem)),
        Layer.provide(envLayer(env))
      )

    const scenario = Effect.gen(function* () {
      // OAuth: success, a 429 burst, an expired token, a failed statement.
      yield* Effect.gen(function* () {
        const warehouse = yield* Warehouse
        yield* warehouse.execute("SELECT 1")
        emulator.faults.throttle(2, 0)
        // Through the one retry layer, as the runner calls it: the retry notices are logs too.
        yield* retryTransient(warehouse.execute("SELECT 2"), { policy: fastRetry, subject: "model m" })
        emulator.faults.expireIssuedTokens()
        yield* warehouse.execute("SELECT 3")
        yield* warehouse.execute("SELECT * FROM missing_table").pipe(Effect.catchAll(capture))
      }).pipe(Effect.provide(stack(adapterFor(emulator, { client_id: CLIENT_ID, client_secret: CLIENT_SECRET }))))
      // OAuth with a wrong secret.
      yield* Effect.flatMap(Warehouse, (w) => w.execute("SELECT 1")).pipe(
        Effect.catchAll(capture),
        Effect.provide(stack(adapterFor(emulator, { client_id: CLIENT_ID, client_secret: WRONG_SECRET })))
      )
      // Token from config, then one from the environment that the warehouse rejects.
      yield* Effect.flatMap(WarehouseStatements, (s) => s.execute("SELECT 4")).pipe(
        Effect.provide(stack(adapterFor(emulator, { token: PAT })))
      )
      yield* Effect.flatMap(WarehouseStatements, (s) => s.execute("SELECT 5")).pipe(
        Effect.catchAll(capture),
        Effect.provide(stack(adapterFor(emulator, {}), { WAREHOUSE_TOKEN: ENV_TOKEN }))
      )
    }).pipe(Effect.withSpan("test.root"))

    return Effect.gen(function* () {
      yield* scenario
      // Read before the SDK layer closes: shutting down the in-memory exporter empties it.
      const spanText = spans.dump()
      expect(spanText.some((s) => s.includes("warehouse.statement"))).toBe(true)
      expect(spanText.some((s) => s.includes("warehouse.token_exchange"))).toBe(true)
      expect(logs.lines.some((l) => l.includes("retrying (2/5)"))).toBe(true)
      expect(captured.length).toBeGreaterThanOrEqual(9)
      const everything = [...captured, ...logs.lines, ...spanText].join("\n")
      for (const secret of [PAT, CLIENT_SECRET, WRONG_SECRET, ENV_TOKEN]) expect(everything).not.toContain(secret)
      // Access tokens the emulator issued (all start with "emu-") never show either.
      expect(everything).not.toContain("emu-")
    }).pipe(Effect.provide(Layer.merge(logs.layer, spans.layer)))
  })
})
