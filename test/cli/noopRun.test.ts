import { describe, expect, it } from "vitest"
import { existsSync, statSync } from "node:fs"
import { join } from "node:path"
import { makeProject, runCli } from "../support/cli"

const sidecar = (name: string) => `name = "${name}"\n[target]\ncatalog = "warehouse"\nschema = "s"\ntable = "${name}"\n`

const project = () =>
  makeProject({
    "pcli.toml": `[adapter.local]\ntype = "embedded"\n`,
    "models/one.sql": "SELECT 1 AS id",
    "models/one.toml": sidecar("one"),
    "models/two.sql": "SELECT id, 'two' AS label FROM s.one",
    "models/two.toml": sidecar("two")
  })

const run = async (cwd: string) => {
  const r = await runCli(["run", "--output", "json"], { cwd })
  expect(r.code, r.stderr).toBe(0)
  const out = JSON.parse(r.stdout) as { readonly models: ReadonlyArray<{ readonly model_name: string; readonly status: string }> }
  return Object.fromEntries(out.models.map((m) => [m.model_name, m.status]))
}

/** Drops a model's relation (its view, decision 37) behind pcli's back, through DuckDB itself. */
const dropTable = async (cwd: string, table: string) => {
  const { DuckDBInstance } = await import("@duckdb/node-api")
  const instance = await DuckDBInstance.create(join(cwd, ".pcli", "warehouse.duckdb"))
  const connection = await instance.connect()
  await connection.run(`DROP VIEW ${table}`)
  connection.closeSync()
  instance.closeSync()
}

describe("a no-op run without DuckDB (binary)", () => {
  it("a run that reuses every model leaves the warehouse closed; a table dropped behind pcli's back is still rebuilt", async () => {
    const cwd = project()
    const file = join(cwd, ".pcli", "warehouse.duckdb")
    const snapshot = `${file}.pcli-catalog.json`
    expect(await run(cwd)).toEqual({ one: "success", two: "success" })
    expect(existsSync(snapshot)).toBe(true)
    const before = { warehouse: statSync(file, { bigint: true }), snapshot: statSync(snapshot, { bigint: true }) }

    // Opening DuckDB removes the snapshot and closing it writes a new file: the same one means it never opened.
    expect(await run(cwd)).toEqual({ one: "unchanged", two: "unchanged" })
    const after = { warehouse: statSync(file, { bigint: true }), snapshot: statSync(snapshot, { bigint: true }) }
    expect(after.snapshot.ino).toBe(before.snapshot.ino)
    expect(after.snapshot.mtimeNs).toBe(before.snapshot.mtimeNs)
    expect(after.warehouse.mtimeNs).toBe(before.warehouse.mtimeNs)

    await dropTable(cwd, "s.two")
    expect(await run(cwd)).toEqual({ one: "unchanged", two: "success" })
    expect(await run(cwd)).toEqual({ one: "unchanged", two: "unchanged" })
  })
})
