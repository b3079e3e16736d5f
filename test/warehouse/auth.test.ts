import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Layer, TestClock } from "effect"
import { afterAll, beforeAll } from "vitest"
import { WarehouseAdapter } from "../../src/schemas/adapters"
import { substituteEnvVars } from "../../src/services/ProjectConfig/interpolate"
import { decodeToml } from "../../src/platform/toml"
import { WarehouseAuth } from "../../src/services/WarehouseAuth/WarehouseAuth"
import { layerFromAdapter } from "../../src/services/WarehouseClient/layer"
import { WarehouseStatements } from "../../src/services/WarehouseClient/statements"
import { generateLoopbackCertificate, type LoopbackCertificate } from "../support/tls"
import { startWarehouseEmulator, type WarehouseEmulator } from "../support/warehouseEmulator"
import { adapterFor, CLIENT_ID, CLIENT_SECRET, envLayer, httpClientTrusting, PAT } from "./fixtures"

let certificate: LoopbackCertificate
let emulator: WarehouseEmulator
/** Issues 30 s tokens: never "fresh" under the 60 s margin. */
let shortLived: WarehouseEmulator

beforeAll(async () => {
  certificate = await generateLoopbackCertificate()
  emulator = await startWarehouseEmulator({
    personalTokens: [PAT],
    clients: { [CLIENT_ID]: CLIENT_SECRET },
    tokenLifetimeSeconds: 120,
    certificate
  })
  shortLived = await startWarehouseEmulator({ clients: { [CLIENT_ID]: CLIENT_SECRET }, tokenLifetimeSeconds: 30, certificate })
})
afterAll(() => Promise.all([emulator.close(), shortLived.close()]))

const services = (adapter: WarehouseAdapter, env: Record<string, string> = {}) =>
  layerFromAdapter("wh", adapter).pipe(
    Layer.provide(httpClientTrusting(certificate.caPem)),
    Layer.provide(envLayer(env))
  )

const execute = (sql: string) => Effect.flatMap(WarehouseStatements, (s) => s.execute(sql))
const method = Effect.map(WarehouseAuth, (auth) => auth.method)

describe("credential precedence", () => {
  it.live("no credentials is an error at startup, before any request", () =>
    Effect.gen(function* () {
      emulator.resetCounts()
      const exit = yield* Effect.exit(Layer.build(services(adapterFor(emulator, {}))).pipe(Effect.scoped))
      expect(Exit.isFailure(exit)).toBe(true)
      const error = yield* Effect.flip(Layer.build(services(adapterFor(emulator, { client_id: CLIENT_ID }))).pipe(Effect.scoped))
      expect(error.code).toBe("warehouse-no-credentials")
      expect(error.message).toContain("adapter.wh")
      expect(error.message).toContain("WAREHOUSE_TOKEN")
      expect(error.message).toContain("WAREHOUSE_CLIENT_ID and WAREHOUSE_CLIENT_SECRET")
      const emptySecret = yield* Effect.flip(
        Layer.build(services(adapterFor(emulator, { token: "", client_id: CLIENT_ID, client_secret: "" }))).pipe(Effect.scoped)
      )
      expect(emptySecret.code).toBe("warehouse-no-credentials")
      for (const route of ["token", "submit", "poll"] as const) expect(emulator.count(route)).toBe(0)
    })
  )

  it.live("a token beats client credentials", () =>
    Effect.gen(function* () {
      emulator.resetCounts()
      expect(yield* method).toBe("token")
      expect((yield* execute("SELECT 1 AS x")).rows).toEqual([[1]])
      expect(emulator.count("token")).toBe(0)
    }).pipe(Effect.provide(services(adapterFor(emulator, { token: PAT, client_id: CLIENT_ID, client_secret: CLIENT_SECRET }))))
  )

  it.live("an empty token falls through to client credentials", () =>
    Effect.gen(function* () {
      emulator.resetCounts()
      expect(yield* method).toBe("oauth")
      expect((yield* execute("SELECT 1 AS x")).rows).toEqual([[1]])
      expect(emulator.count("token")).toBe(1)
    }).pipe(Effect.provide(services(adapterFor(emulator, { token: "", client_id: CLIENT_ID, client_secret: CLIENT_SECRET }))))
  )

  it.live("${VAR} references in pcli.toml: an empty token variable selects OAuth", () =>
    Effect.gen(function* () {
      const toml = [
        'type = "warehouse"',
        `host = "${emulator.host}"`,
        `http_path = "${emulator.httpPath}"`,
        'token = "${WAREHOUSE_TOKEN}"',
        'client_id = "${WAREHOUSE_CLIENT_ID}"',
        'client_secret = "${WAREHOUSE_CLIENT_SECRET}"'
      ].join("\n")
      const env = { WAREHOUSE_TOKEN: "", WAREHOUSE_CLIENT_ID: CLIENT_ID, WAREHOUSE_CLIENT_SECRET: CLIENT_SECRET }
      const text = yield* substituteEnvVars(toml, env, "pcli.toml")
      const adapter = yield* decodeToml(WarehouseAdapter, text, "pcli.toml")
      emulator.resetCounts()
      const run = Effect.gen(function* () {
        expect(yield* method).toBe("oauth")
        return yield* execute("SELECT 7 AS x")
      })
      expect((yield* run.pipe(Effect.provide(services(adapter)))).rows).toEqual([[7]])
      expect(emulator.count("token")).toBe(1)
      const withToken = yield* decodeToml(
        WarehouseAdapter,
        yield* substituteEnvVars(toml, { ...env, WAREHOUSE_TOKEN: PAT }, "pcli.toml"),
        "pcli.toml"
      )
      expect(yield* method.pipe(Effect.provide(services(withToken)))).toBe("token")
    })
  )

  it.live("environment variables through Config: WAREHOUSE_TOKEN, then client id and secret", () =>
    Effect.gen(function* () {
      const bare = adapterFor(emulator, {})
      expect(yield* method.pipe(Effect.provide(services(bare, { WAREHOUSE_TOKEN: PAT })))).toBe("token")
      expect(
        yield* method.pipe(
          Effect.provide(
            services(bare, { WAREHOUSE_TOKEN: "", WAREHOUSE_CLIENT_ID: CLIENT_ID, WAREHOUSE_CLIENT_SECRET: CLIENT_SECRET })
          )
        )
      ).toBe("oauth")
      // A token from the environment still beats client credentials from the config.
      expect(
        yield* method.pipe(
          Effect.provide(
            services(adapterFor(emulator, { client_id: CLIENT_ID, client_secret: CLIENT_SECRET }), { WAREHOUSE_TOKEN: PAT })
          )
        )
      ).toBe("token")
      emulator.resetCounts()
      const rows = yield* execute("SELECT 3 AS x").pipe(
        Effect.provide(services(bare, { WAREHOUSE_CLIENT_ID: CLIENT_ID, WAREHOUSE_CLIENT_SECRET: CLIENT_SECRET }))
      )
      expect(rows.rows).toEqual([[3]])
      expect(emulator.count("token")).toBe(1)
    })
  )
})

describe("OAuth token lifecycle", () => {
  const oauth = () => services(adapterFor(emulator, { client_id: CLIENT_ID, client_secret: CLIENT_SECRET }))

  it.live("one token request serves 100 concurrent statements", () =>
    Effect.gen(function* () {
      emulator.resetCounts()
      const results = yield* Effect.forEach(Array.from({ length: 100 }, (_, i) => i), (i) => execute(`SELECT ${i} AS i`), {
        concurrency: 100
      })
      expect(results.map((r) => r.rows[0]?.[0])).toEqual(Array.from({ length: 100 }, (_, i) => i))
      expect(emulator.count("token")).toBe(1)
      expect(emulator.count("submit")).toBe(100)
    }).pipe(Effect.provide(oauth()))
  )

  it.effect("refreshes before expiry (60 s margin) during a long run", () =>
    Effect.gen(function* () {
      emulator.resetCounts()
      yield* execute("SELECT 1")
      expect(emulator.count("token")).toBe(1)
      // Issued for 120 s: at 59 s it still has 61 s left, so it is reused.
      yield* TestClock.adjust("59 seconds")
      yield* execute("SELECT 2")
      expect(emulator.count("token")).toBe(1)
      // At 61 s it has 59 s left, inside the margin: refreshed before it expires.
      yield* TestClock.adjust("2 seconds")
      yield* Effect.forEach([1, 2, 3, 4, 5], (i) => execute(`SELECT ${i}`), { concurrency: 5 })
      expect(emulator.count("token")).toBe(2)
      expect(emulator.unauthorizedCount()).toBe(0)
    }).pipe(Effect.provide(oauth()))
  )

  it.live("a 401 mid-run drops the token and recovers with one refresh", () =>
    Effect.gen(function* () {
      emulator.resetCounts()
      yield* execute("SELECT 1")
      emulator.faults.expireIssuedTokens()
      const results = yield* Effect.forEach(Array.from({ length: 20 }, (_, i) => i), (i) => execute(`SELECT ${i} AS i`), {
        concurrency: 20
      })
      expect(results).toHaveLength(20)
      expect(emulator.unauthorizedCount()).toBeGreaterThanOrEqual(1)
      expect(emulator.count("token")).toBe(2)
    }).pipe(Effect.provide(oauth()))
  )

  it.live("a 403 Invalid Token is handled like a 401", () =>
    Effect.gen(function* () {
      emulator.resetCounts()
      yield* execute("SELECT 1")
      emulator.faults.expireIssuedTokens(403)
      expect((yield* execute("SELECT 2 AS x")).rows).toEqual([[2]])
      expect(emulator.count("token")).toBe(2)
      expect(emulator.count("submit")).toBe(3)
    }).pipe(Effect.provide(oauth()))
  )

  it.live("tokens shorter than the margin: concurrent callers still share one exchange", () =>
    Effect.gen(function* () {
      const run = Effect.forEach(Array.from({ length: 20 }, (_, i) => i), (i) => execute(`SELECT ${i}`), { concurrency: 20 })
      yield* run
      expect(shortLived.count("token")).toBe(1)
      yield* execute("SELECT 1")
      expect(shortLived.count("token")).toBe(2)
    }).pipe(Effect.provide(services(adapterFor(shortLived, { client_id: CLIENT_ID, client_secret: CLIENT_SECRET }))))
  )

  it.live("a token endpoint failure names the host, never the secret", () =>
    Effect.gen(function* () {
      const failWith = (mode: "server-error" | "missing-fields") =>
        Effect.gen(function* () {
          emulator.faults.tokenEndpoint = mode
          return yield* execute("SELECT 1").pipe(
            Effect.flip,
            Effect.provide(oauth()),
            Effect.ensuring(Effect.sync(() => (emulator.faults.tokenEndpoint = "ok")))
          )
        })
      const serverError = yield* failWith("server-error")
      expect(serverError._tag).toBe("TokenExchangeFailed")
      expect(serverError.message).toContain(`https://${emulator.host}/oidc/v1/token`)
      expect(serverError.message).toContain("HTTP 500")
      const missing = yield* failWith("missing-fields")
      expect(missing.message).toMatch(/lacks access_token, token_type or expires_in/)
      const wrongSecret = yield* execute("SELECT 1").pipe(
        Effect.flip,
        Effect.provide(services(adapterFor(emulator, { client_id: CLIENT_ID, client_secret: "wrong-secret-value" })))
      )
      expect(wrongSecret.message).toContain("HTTP 401 (invalid_client)")
      for (const error of [serverError, missing, wrongSecret]) {
        const text = `${error.message} ${JSON.stringify(error)} ${String(error)}`
        expect(text).not.toContain(CLIENT_SECRET)
        expect(text).not.toContain("wrong-secret-value")
      }
    })
  )
})
