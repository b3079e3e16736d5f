import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Layer } from "effect"
import { afterAll, beforeAll } from "vitest"
import { layerFromAdapter } from "../../src/services/WarehouseClient/layer"
import { WarehouseStatements } from "../../src/services/WarehouseClient/statements"
import type { WarehouseClientOptions } from "../../src/services/WarehouseClient/WarehouseClient"
import { generateLoopbackCertificate, type LoopbackCertificate } from "../support/tls"
import { startWarehouseEmulator, type WarehouseEmulator } from "../support/warehouseEmulator"
import { adapterFor, captureLogs, envLayer, fastRetry, httpClientTrusting, PAT } from "./fixtures"

let certificate: LoopbackCertificate
let emulator: WarehouseEmulator

beforeAll(async () => {
  certificate = await generateLoopbackCertificate()
  emulator = await startWarehouseEmulator({ personalTokens: [PAT], chunkRows: 7, certificate })
})
afterAll(() => emulator.close())

const services = (fields: Parameters<typeof adapterFor>[1] = { token: PAT }, options: WarehouseClientOptions = { retry: fastRetry }) =>
  layerFromAdapter("wh", adapterFor(emulator, fields), options).pipe(
    Layer.provide(httpClientTrusting(certificate.caPem)),
    Layer.provide(envLayer())
  )

const execute = (sql: string) => Effect.flatMap(WarehouseStatements, (s) => s.execute(sql))

describe("warehouse statements", () => {
  it.live("reads a multi-chunk result whole", () =>
    Effect.gen(function* () {
      emulator.resetCounts()
      const result = yield* execute("SELECT i::INTEGER AS i, 'r' || i AS label FROM range(100) t(i) ORDER BY i")
      expect(result.rows).toHaveLength(100)
      expect(result.rows[0]).toEqual([0, "r0"])
      expect(result.rows[99]).toEqual([99, "r99"])
      expect(result.columns).toEqual([
        { name: "i", type: "INT" },
        { name: "label", type: "STRING" }
      ])
      expect(emulator.count("chunk")).toBe(14)
    }).pipe(Effect.provide(services()))
  )
})

describe("warehouse statement failures and retries", () => {
  it.live("cancels a statement that exceeds the time-out", () =>
    Effect.gen(function* () {
      emulator.resetCounts()
      emulator.faults.statementDelayMs = 4_000
      const error = yield* execute("SELECT 1").pipe(Effect.flip, Effect.ensuring(Effect.sync(() => (emulator.faults.statementDelayMs = 0))))
      expect(error._tag).toBe("StatementTimedOut")
      expect(error.message).toMatch(/exceeded 1s and was cancelled/)
      expect(emulator.count("cancel")).toBe(1)
      const record = emulator.statements().find((s) => error._tag === "StatementTimedOut" && s.id === error.statementId)
      expect(record?.state).toBe("CANCELED")
    }).pipe(Effect.provide(services({ token: PAT, statement_timeout_seconds: 1 })))
  )

  it.live("cancels the statement when the caller interrupts it", () =>
    Effect.gen(function* () {
      emulator.resetCounts()
      emulator.faults.statementDelayMs = 3_000
      const fiber = yield* Effect.fork(execute("SELECT 1"))
      while (emulator.count("poll") === 0) yield* Effect.sleep("20 millis")
      yield* Fiber.interrupt(fiber)
      emulator.faults.statementDelayMs = 0
      expect(emulator.count("cancel")).toBe(1)
      expect(emulator.statements().at(-1)?.state).toBe("CANCELED")
    }).pipe(Effect.provide(services({ token: PAT, statement_timeout_seconds: 5 })))
  )

  it.live("respects Retry-After through a 429 storm", () => {
    const logs = captureLogs()
    return Effect.gen(function* () {
      emulator.resetCounts()
      emulator.faults.throttle(3, 1)
      const result = yield* execute("SELECT 42 AS answer")
      expect(result.rows).toEqual([[42]])
      expect(emulator.count("submit")).toBe(4)
      const retries = logs.lines.filter((line) => line.includes("warehouse call retried"))
      expect(retries).toHaveLength(3)
      for (const line of retries) {
        expect(line).toContain('"status":429')
        expect(line).toContain('"delay_ms":1000')
      }
    }).pipe(Effect.provide(Layer.merge(services(), logs.layer)))
  })

  it.live("retries 5xx and connection resets, then succeeds", () =>
    Effect.gen(function* () {
      emulator.resetCounts()
      emulator.faults.serverErrors(2, 503)
      expect((yield* execute("SELECT 1 AS one")).rows).toEqual([[1]])
      expect(emulator.count("submit")).toBe(3)
      emulator.resetCounts()
      emulator.faults.resetConnections(2)
      expect((yield* execute("SELECT 2 AS two")).rows).toEqual([[2]])
      expect(emulator.count("submit")).toBe(3)
    }).pipe(Effect.provide(services()))
  )

  it.live("gives up on a persistent 5xx after the capped retries, marked transient", () =>
    Effect.gen(function* () {
      emulator.resetCounts()
      emulator.faults.serverErrors(100, 502)
      const error = yield* execute("SELECT 1").pipe(Effect.flip, Effect.ensuring(Effect.sync(() => emulator.faults.serverErrors(0))))
      expect(error._tag).toBe("WarehouseApiError")
      expect(error._tag === "WarehouseApiError" && error.transient).toBe(true)
      expect(emulator.count("submit")).toBe(fastRetry.maxRetries + 1)
    }).pipe(Effect.provide(services()))
  )

  it.live("a failed statement carries the warehouse's message and state and is not retried", () =>
    Effect.gen(function* () {
      emulator.resetCounts()
      const error = yield* execute("SELECT * FROM no_such_table").pipe(Effect.flip)
      expect(error._tag).toBe("StatementExecutionFailed")
      if (error._tag !== "StatementExecutionFailed") return
      expect(error.state).toBe("FAILED")
      expect(error.detail).toMatch(/no_such_table/)
      expect(error.message).toMatch(/FAILED/)
      expect(emulator.count("submit")).toBe(1)
    }).pipe(Effect.provide(services()))
  )

  it.live("a 4xx answer fails at once", () =>
    Effect.gen(function* () {
      emulator.resetCounts()
      const error = yield* execute("SELECT 1").pipe(Effect.flip)
      expect(error._tag).toBe("WarehouseApiError")
      expect(error._tag === "WarehouseApiError" && error.status).toBe(401)
      expect(emulator.count("submit")).toBe(1)
    }).pipe(Effect.provide(services({ token: "not-a-valid-token" })))
  )
})
