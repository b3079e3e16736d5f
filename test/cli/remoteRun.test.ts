import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeProject, runCli } from "../support/cli"
import { startWarehouseEmulator, type WarehouseEmulator } from "../support/warehouseEmulator"

const CLIENT_SECRET = "m2m-SECRET-424242"

let emulator: WarehouseEmulator
beforeAll(async () => {
  emulator = await startWarehouseEmulator({ clients: { "svc-pcli": CLIENT_SECRET } })
})
afterAll(() => emulator.close())

const model = (name: string, sql: string) => ({
  [`models/${name}.sql`]: sql,
  [`models/${name}.toml`]: `name = "${name}"\n[target]\ncatalog = "workspace"\nschema = "analytics"\ntable = "${name}"\n`
})

describe("pcli run on a remote warehouse (binary, HTTPS emulator)", () => {
  it("runs a 3-model project end to end with OAuth client credentials; secrets stay out of output", async () => {
    const cwd = makeProject({
      "pcli.toml": `[adapter.wh]\ntype = "warehouse"\nhost = "${emulator.host}"\nhttp_path = "${emulator.httpPath}"\nclient_id = "svc-pcli"\nclient_secret = "\${WAREHOUSE_CLIENT_SECRET}"\n`,
      ...model("orders", "SELECT * FROM (VALUES (1, 10.0), (2, 25.5), (3, 4.5)) AS t(order_id, amount)"),
      ...model("big_orders", "SELECT order_id, amount FROM analytics.orders WHERE amount > 5"),
      ...model("order_stats", "SELECT count(*) AS n, sum(amount) AS total FROM analytics.big_orders")
    })
    emulator.resetCounts()
    // Trust comes from Node's own NODE_EXTRA_CA_CERTS, exactly as in production; no URL override exists.
    const env = { WAREHOUSE_CLIENT_SECRET: CLIENT_SECRET, NODE_EXTRA_CA_CERTS: emulator.certificate.caFile }
    const r = await runCli(["run", "--output", "json"], { cwd, env })
    expect(r.stderr).toBe("")
    expect(r.code).toBe(0)
    const out = JSON.parse(r.stdout)
    expect(out.status).toBe("success")
    expect(out.models.map((m: { model_name: string }) => m.model_name)).toEqual(["orders", "big_orders", "order_stats"])
    expect(emulator.count("token")).toBe(1)
    const rows = await emulator.query("SELECT n FROM analytics.order_stats")
    expect(Number(rows[0]?.[0])).toBe(2)
    expect(r.stdout + r.stderr).not.toContain(CLIENT_SECRET)
  })

  it("no credentials fail at startup, before any request", async () => {
    const cwd = makeProject({
      "pcli.toml": `[adapter.wh]\ntype = "warehouse"\nhost = "${emulator.host}"\nhttp_path = "${emulator.httpPath}"\n`,
      ...model("orders", "SELECT 1 AS id")
    })
    emulator.resetCounts()
    const r = await runCli(["run"], { cwd, env: { NODE_EXTRA_CA_CERTS: emulator.certificate.caFile } })
    expect(r.code).toBe(1)
    expect(r.stderr.trim()).toMatch(/^error\[warehouse-no-credentials\]: no warehouse credentials for adapter\.wh/)
    expect(emulator.count("token") + emulator.count("submit")).toBe(0)
  })
})
