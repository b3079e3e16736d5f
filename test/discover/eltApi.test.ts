import { NodeContext, NodeHttpClient } from "@effect/platform-node"
import { Effect, Either, Layer, Redacted } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as EltApi from "../../src/services/EltApi/EltApi"
import * as RateBudget from "../../src/services/EltApi/RateBudget"
import { addTenant, type EltEmulator, makeTenant, startEltEmulator } from "../support/eltEmulator"
import { freePort } from "../support/ports"
import { testApiOptions, tmpDir } from "./harness"

let emulator: EltEmulator
const budgetDir = tmpDir("elt-api-budget")

beforeAll(async () => {
  emulator = await startEltEmulator({ latencyMs: 5, pageSize: 7 })
})
afterAll(() => emulator.close())

const fetchWith = (
  conn: EltApi.EltConnection,
  options: EltApi.EltApiOptions = testApiOptions,
  onProgress?: EltApi.ProgressCallback
) =>
  Effect.runPromise(
    Effect.gen(function* () {
      const api = yield* EltApi.EltApi
      return yield* Effect.either(api.fetchEnvelope(conn, onProgress))
    }).pipe(
      Effect.provide(
        EltApi.layerWith(options).pipe(
          Layer.provide(RateBudget.layerAt(budgetDir)),
          Layer.provide(NodeHttpClient.layerUndici),
          Layer.provide(NodeContext.layer)
        )
      )
    )
  )

const connection = (apiKey: string, destinationId = "dest_api", base = emulator.baseUrl): EltApi.EltConnection => ({
  baseUrl: base,
  apiKey,
  apiSecret: Redacted.make(emulator.tenants.get(apiKey)?.apiSecret ?? "s3cr3t-value"),
  destinationId
})

describe("EltApi (connector-sync client)", () => {
  it("follows every page, fetches each connector's schemas once, concurrently, and builds a sorted envelope", async () => {
    addTenant(emulator, makeTenant("api-pages", "dest_api", 20))
    emulator.resetCounts()
    const progress: Array<string> = []
    const result = await fetchWith(connection("api-pages"), testApiOptions, (p) =>
      Effect.sync(() => {
        progress.push(`${p.done}/${p.total}`)
      })
    )
    const env = Either.getOrThrow(result)
    expect(emulator.counts).toEqual({ destination: 1, connectors: 3, schemas: 20 })
    expect(emulator.maxInFlight).toBeGreaterThan(1)
    expect(env.connectors.map((c) => c.id)).toEqual([...env.connectors.map((c) => c.id)].sort())
    expect(Object.keys(env).join(",")).toBe("version,fetched_at,destination,connectors,schemas")
    expect(env.fetched_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/)
    expect(env.connectors[0]?.succeeded_at).toBe("2026-01-02T03:04:05Z")
    expect(Object.keys(env.schemas["conn_000"]?.schemas ?? {})).toEqual(["archive", "public"])
    expect(progress[0]).toBe("0/20")
    expect(progress.at(-1)).toBe("20/20")
  })

  it("honours 429 + Retry-After, then succeeds", async () => {
    addTenant(emulator, makeTenant("api-429", "dest_api", 3))
    emulator.resetCounts()
    emulator.inject429(2, "0")
    const result = await fetchWith(connection("api-429"))
    expect(Either.isRight(result)).toBe(true)
    expect(emulator.throttled).toBe(2)
  })

  it("a Retry-After longer than our back-off is recorded in the shared budget for every process", async () => {
    addTenant(emulator, makeTenant("api-429-wait", "dest_api", 1))
    emulator.inject429(1, "1")
    const started = Date.now()
    const result = await fetchWith(connection("api-429-wait"))
    expect(Either.isRight(result)).toBe(true)
    const state = fs
      .readdirSync(budgetDir)
      .filter((f) => f.startsWith("127.0.0.1") && f.endsWith(".json"))
      .map((f) => JSON.parse(fs.readFileSync(path.join(budgetDir, f), "utf8")) as { wake_at_ms: number })
    expect(state.length).toBe(1)
    expect(state[0]?.wake_at_ms).toBeGreaterThanOrEqual(started + 1000)
  })

  it("429 on every attempt → EltRateLimited after max_retries", async () => {
    addTenant(emulator, makeTenant("api-429-all", "dest_api", 1))
    emulator.resetCounts()
    emulator.inject429(1000, "0")
    const result = await fetchWith(connection("api-429-all"), { ...testApiOptions, maxRetries: 2 })
    emulator.inject429(0)
    expect(Either.isLeft(result) && result.left._tag).toBe("EltRateLimited")
    expect(Either.isLeft(result) && result.left.code).toBe("elt-rate-limited")
  })

  it("wrong secret → typed 401 error that never carries the secret", async () => {
    addTenant(emulator, makeTenant("api-401", "dest_api", 1))
    const result = await fetchWith({ ...connection("api-401"), apiSecret: Redacted.make("wrong-secret-xyz") })
    expect(Either.isLeft(result) && result.left._tag).toBe("EltHttpStatus")
    expect(Either.isLeft(result) && result.left.message).toMatch(/HTTP 401/)
    expect(JSON.stringify(Either.isLeft(result) && { ...result.left, m: result.left.message })).not.toContain("wrong-secret-xyz")
  })

  it("a connector whose schema config 404s is listed but left out of schemas; all 404 → NoHealthyConnectors", async () => {
    const tenant = addTenant(emulator, makeTenant("api-404", "dest_api", 3))
    delete tenant.schemas["conn_001"]
    const partial = Either.getOrThrow(await fetchWith(connection("api-404")))
    expect(partial.connectors.map((c) => c.id)).toContain("conn_001")
    expect(Object.keys(partial.schemas)).toEqual(["conn_000", "conn_002"])
    tenant.schemas = {}
    const none = await fetchWith(connection("api-404"))
    expect(Either.isLeft(none) && none.left._tag).toBe("NoHealthyConnectors")
  })

  it("unreachable API → EltUnreachable (after retries)", async () => {
    const result = await fetchWith({ ...connection("api-pages"), baseUrl: `http://127.0.0.1:${await freePort()}/v1` }, { ...testApiOptions, maxRetries: 1 })
    expect(Either.isLeft(result) && result.left._tag).toBe("EltUnreachable")
  })

  it("request time-out → EltTimeout", async () => {
    emulator.latencyMs = 400
    try {
      const result = await fetchWith(connection("api-pages"), { ...testApiOptions, maxRetries: 0, requestTimeout: "100 millis" })
      expect(Either.isLeft(result) && result.left._tag).toBe("EltTimeout")
    } finally {
      emulator.latencyMs = 5
    }
  })

  it("zero connectors is a valid, empty envelope", async () => {
    addTenant(emulator, makeTenant("api-empty", "dest_api", 0))
    const env = Either.getOrThrow(await fetchWith(connection("api-empty")))
    expect(env.connectors).toEqual([])
    expect(env.schemas).toEqual({})
  })
})
