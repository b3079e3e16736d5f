import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeProject, runCli } from "../support/cli"
import { freePort } from "../support/ports"
import { startWarehouseEmulator, type WarehouseEmulator } from "../support/warehouseEmulator"

const CLIENT_SECRET = "m2m-SECRET-424242"
const PAT = "dapi-remote-run-test-0000"

let emulator: WarehouseEmulator
beforeAll(async () => {
  emulator = await startWarehouseEmulator({ clients: { "svc-pcli": CLIENT_SECRET }, personalTokens: [PAT] })
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
    // Off a terminal, stderr holds the progress lines only.
    expect(r.stderr.trim().split("\n").every((l) => /^\[\d\/3\] (START|OK) /.test(l))).toBe(true)
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

  it("a transient failure is retried once per model attempt, each retry shown on stderr as retrying (n/4)", async () => {
    const cwd = makeProject({
      "pcli.toml": `[adapter.wh]\ntype = "warehouse"\nhost = "${emulator.host}"\nhttp_path = "${emulator.httpPath}"\ntoken = "\${WAREHOUSE_TOKEN}"\n`,
      ...model("orders", "SELECT 1 AS order_id")
    })
    emulator.resetCounts()
    // The first 503 hits the governance record's read (a human is warned and proceeds), the second the
    // catalog query of the move to physical tables (nothing moved), the third and fourth the pre-creation
    // of the view's and the physical table's schemas (ignored), the fifth the model's first attempt.
    emulator.faults.serverErrors(5, 503)
    const env = { WAREHOUSE_TOKEN: PAT, NODE_EXTRA_CA_CERTS: emulator.certificate.caFile }
    const r = await runCli(["run", "--output", "json"], { cwd, env })
    emulator.faults.serverErrors(0)
    expect(r.code).toBe(0)
    const out = JSON.parse(r.stdout)
    expect(out.models[0].attempts).toBe(2)
    const retries = r.stderr.split("\n").filter((l) => l.includes("retrying ("))
    expect(retries).toHaveLength(1)
    expect(retries[0]).toMatch(/retrying \(2\/4\) in [\d.]+s: model orders: warehouse 127\.0\.0\.1:\d+: POST \/api\/2\.0\/sql\/statements answered HTTP 503/)
    expect(r.stdout + r.stderr).not.toContain(PAT)
  })

  it("an unreachable warehouse (connection refused) fails at once: no retries, a clear message, exit 1", async () => {
    const closed = `127.0.0.1:${await freePort()}`
    const cwd = makeProject({
      "pcli.toml": `[adapter.wh]\ntype = "warehouse"\nhost = "${closed}"\nhttp_path = "/sql/1.0/warehouses/x"\nclient_id = "svc-pcli"\nclient_secret = "\${WAREHOUSE_CLIENT_SECRET}"\n`,
      ...model("orders", "SELECT 1 AS order_id"),
      ...model("big_orders", "SELECT order_id FROM analytics.orders")
    })
    const r = await runCli(["run", "--output", "json"], { cwd, env: { WAREHOUSE_CLIENT_SECRET: CLIENT_SECRET } })
    expect(r.code).toBe(1)
    expect(r.stderr).not.toContain("retrying")
    const out = JSON.parse(r.stdout)
    expect(out.status).toBe("failure")
    expect(out.models.map((m: { model_name: string; status: string; attempts: number }) => [m.model_name, m.status, m.attempts])).toEqual([
      ["orders", "failed", 1],
      ["big_orders", "skipped", 0]
    ])
    expect(out.models[0].error.class).toBe("permanent")
    expect(out.models[0].error.message).toBe(
      `warehouse token request to https://${closed}/oidc/v1/token failed: connection refused (ECONNREFUSED): nothing accepts connections at that host and port`
    )
    expect(out.models[1].failed_upstream).toBe("orders")
    expect(r.stdout + r.stderr).not.toContain(CLIENT_SECRET)
  })
})
