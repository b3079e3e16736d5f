import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Layer } from "effect"
import { afterAll, beforeAll } from "vitest"
import { retryTransient } from "../../src/services/Warehouse/retry"
import { layerFromAdapter } from "../../src/services/WarehouseClient/layer"
import { WarehouseStatements } from "../../src/services/WarehouseClient/statements"
import type { WarehouseClientOptions } from "../../src/services/WarehouseClient/WarehouseClient"
import { generateLoopbackCertificate, type LoopbackCertificate } from "../support/tls"
import { startWarehouseEmulator, type WarehouseEmulator } from "../support/warehouseEmulator"
import { freePort } from "../support/ports"
import { adapterFor, captureLogs, envLayer, fastRetry, httpClientTrusting, PAT } from "./fixtures"

let certificate: LoopbackCertificate
let emulator: WarehouseEmulator

beforeAll(async () => {
  certificate = await generateLoopbackCertificate()
  emulator = await startWarehouseEmulator({ personalTokens: [PAT], chunkRows: 7, certificate })
})
afterAll(() => emulator.close())

const services = (fields: Parameters<typeof adapterFor>[1] = { token: PAT }, options: WarehouseClientOptions = {}) =>
  layerFromAdapter("wh", adapterFor(emulator, fields), options).pipe(
    Layer.provide(httpClientTrusting(certificate.caPem)),
    Layer.provide(envLayer())
  )

const execute = (sql: string) => Effect.flatMap(WarehouseStatements, (s) => s.execute(sql))

/** Through the one retry layer, as the runner wraps a model's build. */
const retried = (sql: string) => retryTransient(execute(sql), { policy: fastRetry, subject: "model m" })

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
      const result = yield* retried("SELECT 42 AS answer")
      expect(result.rows).toEqual([[42]])
      expect(emulator.count("submit")).toBe(4)
      const retries = logs.lines.filter((line) => line.includes("retrying ("))
      expect(retries).toHaveLength(3)
      retries.forEach((line, i) => {
        expect(line).toMatch(/^WARN /)
        expect(line).toContain(`retrying (${i + 2}/5) in 1s: model m: `)
        expect(line).toContain("HTTP 429")
        expect(line).toContain('"delay_ms":1000')
      })
    }).pipe(Effect.provide(Layer.merge(services(), logs.layer)))
  })

  it.live("retries 5xx and connection resets, then succeeds", () =>
    Effect.gen(function* () {
      emulator.resetCounts()
      emulator.faults.serverErrors(2, 503)
      expect((yield* retried("SELECT 1 AS one")).rows).toEqual([[1]])
      expect(emulator.count("submit")).toBe(3)
      emulator.resetCounts()
      emulator.faults.resetConnections(2)
      expect((yield* retried("SELECT 2 AS two")).rows).toEqual([[2]])
      expect(emulator.count("submit")).toBe(3)
    }).pipe(Effect.provide(services()))
  )

  it.live("gives up on a persistent 5xx after the capped retries, marked transient", () =>
    Effect.gen(function* () {
      emulator.resetCounts()
      emulator.faults.serverErrors(100, 502)
      const error = yield* retried("SELECT 1").pipe(Effect.flip, Effect.ensuring(Effect.sync(() => emulator.faults.serverErrors(0))))
      expect(error._tag).toBe("WarehouseApiError")
      expect(error._tag === "WarehouseApiError" && error.transient).toBe(true)
      expect(emulator.count("submit")).toBe(fastRetry.maxRetries + 1)
    }).pipe(Effect.provide(services()))
  )

  it.live("the client itself calls once: a 503 comes back at once, marked transient (no second retry layer)", () =>
    Effect.gen(function* () {
      emulator.resetCounts()
      emulator.faults.serverErrors(1, 503)
      const error = yield* execute("SELECT 1").pipe(Effect.flip)
      expect(error._tag === "WarehouseApiError" && error.status).toBe(503)
      expect(error._tag === "WarehouseApiError" && error.transient).toBe(true)
      expect(emulator.count("submit")).toBe(1)
    }).pipe(Effect.provide(services()))
  )

  it.live("a refused connection or an unknown host fails at once, not transient, with a clear message", () => {
    const logs = captureLogs()
    const at = (host: string, fields: Parameters<typeof adapterFor>[1]) =>
      layerFromAdapter("wh", { ...adapterFor(emulator, fields), host }).pipe(
        Layer.provide(httpClientTrusting(certificate.caPem)),
        Layer.provide(envLayer())
      )
    return Effect.gen(function* () {
      const closed = `127.0.0.1:${yield* Effect.promise(() => freePort())}`
      const refused = yield* retried("SELECT 1").pipe(Effect.flip, Effect.provide(at(closed, { token: PAT })))
      expect(refused._tag).toBe("WarehouseUnreachable")
      expect(refused._tag === "WarehouseUnreachable" && refused.transient).toBe(false)
      expect(refused.message).toBe(
        `warehouse ${closed}: POST /api/2.0/sql/statements failed: connection refused (ECONNREFUSED): nothing accepts connections at that host and port`
      )
      const tokenRefused = yield* retried("SELECT 1").pipe(
        Effect.flip,
        Effect.provide(at(closed, { client_id: "svc", client_secret: "s3cret-value" }))
      )
      expect(tokenRefused._tag).toBe("TokenExchangeFailed")
      expect(tokenRefused.message).toContain("connection refused (ECONNREFUSED)")
      const unknown = yield* retried("SELECT 1").pipe(Effect.flip, Effect.provide(at("no-such-warehouse.invalid", { token: PAT })))
      expect(unknown._tag === "WarehouseUnreachable" && unknown.transient).toBe(false)
      expect(unknown.message).toMatch(/no-such-warehouse\.invalid: .*(ENOTFOUND|EAI_AGAIN)/)
      expect(logs.lines.filter((l) => l.includes("retrying ("))).toEqual([])
    }).pipe(Effect.provide(logs.layer))
  })

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
