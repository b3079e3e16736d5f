import { DuckDBInstance } from "@duckdb/node-api"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { makeProject, runCli } from "../support/cli"

// Lanes are separate DuckDB connections: two of them creating the same schema at once is a catalog
// write-write conflict. A branch run reuses many models of one schema in one layer, each needing the
// branch's view schema `<schema>__<branch>`; it must create each schema once, whatever the lanes do.

const human = { PCLI_PRINCIPAL: "human", PCLI_PRINCIPAL_ID: "alice" }
// Ten schemas of five: each schema's first models start together on four lanes (before the fix, 6 runs in 6 failed).
const SCHEMAS = Array.from({ length: 10 }, (_, i) => `raw_${i}`)
const PER_SCHEMA = 5

const sidecar = (name: string, schema: string) => `name = "${name}"\n[target]\ncatalog = "w"\nschema = "${schema}"\ntable = "${name}"\n`

const files = (): Record<string, string> => {
  const out: Record<string, string> = { "pcli.toml": `[project]\nname = "lanes"\n[adapter.local]\ntype = "embedded"\n` }
  for (const schema of SCHEMAS) {
    for (let i = 0; i < PER_SCHEMA; i++) {
      out[`models/${schema}_${i}.sql`] = `SELECT r AS id, r % 7 AS k FROM range(${i + 10}) t(r)`
      out[`models/${schema}_${i}.toml`] = sidecar(`${schema}_${i}`, schema)
    }
    // One model per schema downstream of that schema's roots: the branch changes it.
    out[`models/${schema}_sum.sql`] = `SELECT count(*) AS n FROM ${schema}.${schema}_0`
    out[`models/${schema}_sum.toml`] = sidecar(`${schema}_sum`, `${schema}_out`)
  }
  return out
}

const views = async (dir: string) => {
  const instance = await DuckDBInstance.create(join(dir, ".pcli", "warehouse.duckdb"))
  const connection = await instance.connect()
  try {
    const rows = (await connection.runAndReadAll("SELECT schema_name || '.' || view_name, sql FROM duckdb_views() WHERE NOT internal ORDER BY 1")).getRows()
    return Object.fromEntries(rows.map(([k, v]) => [String(k), String(v)])) as Record<string, string>
  } finally {
    connection.closeSync()
    instance.closeSync()
  }
}

describe("environments on concurrent lanes (decision 37)", () => {
  it("a branch run reusing many models across several schemas creates each branch view schema once: it succeeds and every branch view reads production's table", async () => {
    const dir = makeProject(files())
    const cli = (args: ReadonlyArray<string>) => runCli(args, { cwd: dir, env: human })
    expect((await cli(["run"])).code).toBe(0)
    const prod = await views(dir)
    expect((await cli(["branch", "create", "feat"])).code).toBe(0)
    for (const schema of SCHEMAS) writeFileSync(join(dir, "models", `${schema}_sum.sql`), `SELECT count(*) + 1 AS n FROM ${schema}.${schema}_0`)

    // Before the fix the conflict could also leave the process hung (or crash it): killed, it fails here too.
    const run = await runCli(["run", "--branch", "feat", "--output", "json"], { cwd: dir, env: human, timeoutMs: 120_000 })
    expect([run.code, /error\[[a-z_-]+\].*/.exec(run.stderr)?.[0]]).toEqual([0, undefined])
    const statuses = JSON.parse(run.stdout).models.map((m: { status: string }) => m.status) as ReadonlyArray<string>
    expect(statuses.filter((s) => s === "unchanged")).toHaveLength(SCHEMAS.length * PER_SCHEMA)
    expect(statuses.filter((s) => s === "success")).toHaveLength(SCHEMAS.length)

    const after = await views(dir)
    for (const [view, sql] of Object.entries(prod)) expect(after[view]).toBe(sql)
    for (const schema of SCHEMAS) {
      for (let i = 0; i < PER_SCHEMA; i++) {
        const name = `${schema}.${schema}_${i}`
        // Reused, not rebuilt: the branch's view reads production's very table.
        expect(after[`${schema}__feat.${schema}_${i}`]).toBe(prod[name]!.replace(name, `${schema}__feat.${schema}_${i}`))
      }
      expect(after[`${schema}_out__feat.${schema}_sum`]).toBeDefined()
      expect(after[`${schema}_out__feat.${schema}_sum`]).not.toBe(prod[`${schema}_out.${schema}_sum`]!.replace(`${schema}_out.`, `${schema}_out__feat.`))
    }
  }, 240_000)

  it("a reused model whose base table was dropped behind pcli's back fails on its own: its downstream is skipped, the rest runs, the run is recorded", async () => {
    const dir = makeProject({
      "pcli.toml": `[project]\nname = "lanes"\n[adapter.local]\ntype = "embedded"\n`,
      "models/a.sql": "SELECT r AS id FROM range(5) t(r)",
      "models/a.toml": sidecar("a", "raw"),
      "models/b.sql": "SELECT r AS id FROM range(3) t(r)",
      "models/b.toml": sidecar("b", "raw"),
      "models/a_sum.sql": "SELECT count(*) AS n FROM raw.a",
      "models/a_sum.toml": sidecar("a_sum", "out")
    })
    const cli = (args: ReadonlyArray<string>) => runCli(args, { cwd: dir, env: human })
    expect((await cli(["run"])).code).toBe(0)
    expect((await cli(["branch", "create", "feat"])).code).toBe(0)
    writeFileSync(join(dir, "models", "a_sum.sql"), "SELECT count(*) + 1 AS n FROM raw.a")
    const instance = await DuckDBInstance.create(join(dir, ".pcli", "warehouse.duckdb"))
    const connection = await instance.connect()
    const table = (await connection.runAndReadAll("SELECT table_name FROM duckdb_tables() WHERE schema_name = 'pcli_physical' AND table_name LIKE 'raw__a__%'")).getRows()[0]?.[0]
    expect(table).toBeDefined()
    await connection.run(`DROP VIEW raw.a; DROP TABLE pcli_physical."${String(table)}"`)
    connection.closeSync()
    instance.closeSync()

    const run = await runCli(["run", "--branch", "feat", "--output", "json"], { cwd: dir, env: human, timeoutMs: 120_000 })
    expect(run.stderr).not.toMatch(/error\[internal\]/)
    expect(run.code).toBe(1)
    const models = Object.fromEntries(JSON.parse(run.stdout).models.map((m: { model_name: string }) => [m.model_name, m]))
    expect(models["a"]).toMatchObject({ status: "failed", error: { code: "statement-failed", class: "permanent" } })
    expect(models["a"].error.message).toContain(String(table))
    expect(models["a_sum"]).toMatchObject({ status: "skipped", failed_upstream: "a" })
    expect(models["b"]).toMatchObject({ status: "unchanged" })
    const history = await runCli(["history", "--output", "json"], { cwd: dir, env: human })
    expect(JSON.parse(history.stdout).runs[0]).toMatchObject({ status: "partial_failure" })
  }, 120_000)
})
