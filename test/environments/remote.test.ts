import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { makeProject, runCli } from "../support/cli"
import { startWarehouseEmulator, type WarehouseEmulator } from "../support/warehouseEmulator"

// The same environment layer on a remote warehouse (decision 37): views by CREATE OR REPLACE VIEW in its dialect.

const PAT = "dapi-environments-test-0000"

let emulator: WarehouseEmulator
beforeAll(async () => {
  emulator = await startWarehouseEmulator({ personalTokens: [PAT] })
})
afterAll(() => emulator.close())

const model = (name: string, sql: string) => ({
  [`models/${name}.sql`]: sql,
  [`models/${name}.toml`]: `name = "${name}"\n[target]\ncatalog = "workspace"\nschema = "envs"\ntable = "${name}"\n`
})

describe("environments on a remote warehouse (binary, HTTPS emulator)", () => {
  it("models are views over fingerprinted tables; a branch builds beside production; promote and rollback swap the views", async () => {
    const cwd = makeProject({
      "pcli.toml": `[adapter.wh]\ntype = "warehouse"\nhost = "${emulator.host}"\nhttp_path = "${emulator.httpPath}"\ntoken = "\${WAREHOUSE_TOKEN}"\n`,
      ...model("orders", "SELECT * FROM (VALUES (1, 10.0), (2, 25.5)) AS t(order_id, amount)"),
      ...model("stats", "SELECT count(*) AS n FROM envs.orders")
    })
    const env = { WAREHOUSE_TOKEN: PAT, NODE_EXTRA_CA_CERTS: emulator.certificate.caFile, PCLI_PRINCIPAL: "human", PCLI_PRINCIPAL_ID: "alice" }
    const cli = (args: ReadonlyArray<string>) => runCli(args, { cwd, env })
    expect((await cli(["run"])).code).toBe(0)
    const kinds = await emulator.query("SELECT table_schema, table_name, table_type FROM information_schema.tables WHERE table_schema IN ('envs', 'pcli_physical') ORDER BY 1, 2")
    expect(kinds.map((r) => [r[0], r[2]])).toEqual([["envs", "VIEW"], ["envs", "VIEW"], ["pcli_physical", "BASE TABLE"], ["pcli_physical", "BASE TABLE"]])

    expect((await cli(["branch", "create", "feat"])).code).toBe(0)
    writeFileSync(join(cwd, "models", "orders.sql"), "SELECT * FROM (VALUES (1, 10.0), (2, 25.5), (3, 7.0)) AS t(order_id, amount)")
    expect((await cli(["run", "--branch", "feat"])).code).toBe(0)
    expect(await emulator.query("SELECT n FROM envs.stats")).toEqual([["2"]])
    expect(await emulator.query("SELECT n FROM envs__feat.stats")).toEqual([["3"]])

    const planId = /^Plan ([0-9a-f]{64})/m.exec((await cli(["plan", "--promote", "feat"])).stdout)![1]!
    expect((await cli(["review", planId, "--approve"])).code).toBe(0)
    const tablesBefore = await emulator.query("SELECT count(*) FROM information_schema.tables WHERE table_type = 'BASE TABLE'")
    expect((await cli(["apply", planId])).code).toBe(0)
    expect(await emulator.query("SELECT n FROM envs.stats")).toEqual([["3"]])
    expect(await emulator.query("SELECT count(*) FROM information_schema.tables WHERE table_type = 'BASE TABLE'")).toEqual(tablesBefore)

    expect((await cli(["rollback"])).code).toBe(0)
    expect(await emulator.query("SELECT n FROM envs.stats")).toEqual([["2"]])
  })
})
