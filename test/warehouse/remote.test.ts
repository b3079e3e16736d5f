import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { afterAll, beforeAll } from "vitest"
import { layerFromAdapterWith, toStatementFailed } from "../../src/services/Warehouse/remote"
import { StatementTimedOut } from "../../src/services/WarehouseClient/errors"
import { Warehouse } from "../../src/services/Warehouse/Warehouse"
import { WarehouseBindings } from "../../src/services/WarehouseClient/bindings"
import { WarehouseCatalog } from "../../src/services/WarehouseClient/catalog"
import { generateLoopbackCertificate, type LoopbackCertificate } from "../support/tls"
import { startWarehouseEmulator, type WarehouseEmulator } from "../support/warehouseEmulator"
import { adapterFor, CLIENT_ID, CLIENT_SECRET, envLayer, httpClientTrusting } from "./fixtures"

let certificate: LoopbackCertificate
let emulator: WarehouseEmulator

beforeAll(async () => {
  certificate = await generateLoopbackCertificate()
  emulator = await startWarehouseEmulator({ clients: { [CLIENT_ID]: CLIENT_SECRET }, tablePageSize: 2, certificate })
})
afterAll(() => emulator.close())

const adapter = () => adapterFor(emulator, { client_id: CLIENT_ID, client_secret: CLIENT_SECRET })

const remote = () =>
  layerFromAdapterWith("wh", adapter()).pipe(
    Layer.provide(httpClientTrusting(certificate.caPem)),
    Layer.provide(envLayer())
  )

describe("remote Warehouse layer", () => {
  it.live("runs a 3-statement model (create / insert-select / select) end to end", () =>
    Effect.gen(function* () {
      const warehouse = yield* Warehouse
      expect(warehouse.kind).toBe("remote")
      emulator.resetCounts()
      yield* warehouse.execute("CREATE TABLE orders_daily (day DATE, orders BIGINT, revenue DOUBLE)")
      yield* warehouse.execute(
        "INSERT INTO orders_daily SELECT DATE '2026-01-01' + CAST(i % 3 AS INTEGER) AS day, count(*) AS orders, sum(i * 1.5) AS revenue FROM range(30) t(i) GROUP BY 1"
      )
      const result = yield* warehouse.execute("SELECT day, orders, revenue FROM orders_daily ORDER BY day")
      expect(result.columns).toEqual([
        { name: "day", type: "DATE" },
        { name: "orders", type: "LONG" },
        { name: "revenue", type: "DOUBLE" }
      ])
      expect(result.rows).toEqual([
        ["2026-01-01", 10, 202.5],
        ["2026-01-02", 10, 217.5],
        ["2026-01-03", 10, 232.5]
      ])
      expect(emulator.count("submit")).toBe(3)
      expect(emulator.count("token")).toBe(1)
    }).pipe(Effect.provide(remote()))
  )

  it.live("maps failures: SQL errors are permanent with state, exhausted 5xx and time-outs are transient", () =>
    Effect.gen(function* () {
      const warehouse = yield* Warehouse
      const sqlError = yield* Effect.flip(warehouse.execute("SELEC nonsense"))
      expect(sqlError.transient).toBe(false)
      expect(sqlError.state).toBe("FAILED")
      expect(sqlError.code).toBe("statement-failed")
      expect(sqlError.message).toMatch(/syntax error/i)

      emulator.faults.serverErrors(100, 503)
      const unavailable = yield* Effect.flip(warehouse.execute("SELECT 1")).pipe(
        Effect.ensuring(Effect.sync(() => emulator.faults.serverErrors(0)))
      )
      expect(unavailable.transient).toBe(true)
      expect(unavailable.message).toContain("HTTP 503")

      const timedOut = toStatementFailed(new StatementTimedOut({ host: emulator.host, statementId: "s1", seconds: 5 }))
      expect(timedOut.transient).toBe(true)
      expect(timedOut.state).toBe("CANCELED")
    }).pipe(Effect.provide(remote()))
  )
})

describe("catalog operations and workspace bindings", () => {
  it.live("creates a catalog and schema, lists tables across pages, gets and drops one", () =>
    Effect.gen(function* () {
      const catalog = yield* WarehouseCatalog
      yield* catalog.createCatalog("sales")
      yield* catalog.createCatalog("sales")
      yield* catalog.createSchema("sales", "gold")
      const warehouse = yield* Warehouse
      for (const name of ["a", "b", "c", "d", "e"]) yield* warehouse.execute(`CREATE TABLE sales.gold.${name} (x INTEGER)`)
      emulator.resetCounts()
      const tables = yield* catalog.listTables("sales", "gold")
      expect(tables.map((t) => t.name)).toEqual(["a", "b", "c", "d", "e"])
      expect(emulator.count("tables.list")).toBe(3)
      const found = yield* catalog.getTable("sales", "gold", "c")
      expect(Option.map(found, (t) => t.full_name)).toEqual(Option.some("sales.gold.c"))
      yield* catalog.dropTable("sales", "gold", "c")
      expect(Option.isNone(yield* catalog.getTable("sales", "gold", "c"))).toBe(true)
      const missing = yield* Effect.flip(catalog.dropTable("sales", "gold", "c"))
      expect(missing._tag === "WarehouseApiError" && missing.status).toBe(404)
      expect(emulator.count("token")).toBe(0)
    }).pipe(Effect.provide(remote()))
  )

  it.live("reconciles workspace bindings with one PATCH and isolates the catalog", () =>
    Effect.gen(function* () {
      const bindings = yield* WarehouseBindings
      yield* bindings.update("sales", { add: [{ workspace_id: 1, binding_type: "BINDING_TYPE_READ_WRITE" }, { workspace_id: 2, binding_type: "BINDING_TYPE_READ_WRITE" }], remove: [] })
      emulator.resetCounts()
      const changes = yield* bindings.reconcile("sales", [
        { workspace_id: 2, binding_type: "BINDING_TYPE_READ_ONLY" },
        { workspace_id: 3, binding_type: "BINDING_TYPE_READ_WRITE" }
      ])
      expect(changes.remove).toEqual([1])
      expect(changes.add.map((b) => b.workspace_id)).toEqual([2, 3])
      expect(emulator.count("bindings.patch")).toBe(1)
      expect(yield* bindings.list("sales")).toEqual([
        { workspace_id: 2, binding_type: "BINDING_TYPE_READ_ONLY" },
        { workspace_id: 3, binding_type: "BINDING_TYPE_READ_WRITE" }
      ])
      const unchanged = yield* bindings.reconcile("sales", [
        { workspace_id: 3, binding_type: "BINDING_TYPE_READ_WRITE" },
        { workspace_id: 2, binding_type: "BINDING_TYPE_READ_ONLY" }
      ])
      expect(unchanged).toEqual({ add: [], remove: [] })
      expect(emulator.count("bindings.patch")).toBe(1)
      expect((yield* bindings.isolate("sales")).isolation_mode).toBe("ISOLATED")
    }).pipe(Effect.provide(remote()))
  )
})
