import { DuckDBInstance } from "@duckdb/node-api"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { runCli } from "../support/cli"
import { environmentProject } from "../support/environments"

// Decision 37: `pcli rollback` undoes the last promote not yet rolled back; run again it goes one
// promote further back, and with none left it is refused. Read from DuckDB's own catalog.

const human = { PCLI_PRINCIPAL: "human", PCLI_PRINCIPAL_ID: "alice" }
const cli = (dir: string, args: ReadonlyArray<string>) => runCli(args, { cwd: dir, env: human })
const errorCode = (stderr: string) => /error\[([a-z_-]+)\]/.exec(stderr)?.[1]
const planIdOf = (stdout: string) => /^Plan ([0-9a-f]{64})/m.exec(stdout)?.[1] ?? ""

/** Production's views (name → SQL), once the binary has exited. */
const productionViews = async (dir: string) => {
  const instance = await DuckDBInstance.create(join(dir, ".pcli", "warehouse.duckdb"))
  const connection = await instance.connect()
  try {
    const rows = (await connection.runAndReadAll("SELECT schema_name || '.' || view_name, sql FROM duckdb_views() WHERE NOT internal AND schema_name IN ('staging', 'marts') ORDER BY 1")).getRows()
    return Object.fromEntries(rows.map(([k, v]) => [String(k), String(v)]))
  } finally {
    connection.closeSync()
    instance.closeSync()
  }
}

/** Edits `clean`, runs the branch, plans, approves and applies its promote. */
const promote = async (dir: string, sql: string) => {
  writeFileSync(join(dir, "models", "clean.sql"), sql)
  expect((await cli(dir, ["run", "--branch", "feat"])).code).toBe(0)
  const planId = planIdOf((await cli(dir, ["plan", "--promote", "feat"])).stdout)
  expect((await cli(dir, ["review", planId, "--approve"])).code).toBe(0)
  expect((await cli(dir, ["apply", planId])).code).toBe(0)
}

describe("rollback history (decision 37)", () => {
  it("a second rollback goes one promote further back, a third is refused; none re-applies a promote", async () => {
    const dir = environmentProject("rollbacks")
    expect((await cli(dir, ["run"])).code).toBe(0)
    expect((await cli(dir, ["branch", "create", "feat"])).code).toBe(0)
    const original = await productionViews(dir)
    await promote(dir, "SELECT id, lower(v) AS v FROM staging.raw")
    const first = await productionViews(dir)
    await promote(dir, "SELECT id, v || '!' AS v FROM staging.raw")
    const second = await productionViews(dir)
    expect(new Set([original["marts.clean"], first["marts.clean"], second["marts.clean"]]).size).toBe(3)

    expect((await cli(dir, ["rollback"])).code).toBe(0)
    expect(await productionViews(dir)).toEqual(first)
    expect((await cli(dir, ["rollback"])).code).toBe(0)
    expect(await productionViews(dir)).toEqual(original)
    const none = await cli(dir, ["rollback"])
    expect([none.code, errorCode(none.stderr), none.stderr.trim().split("\n").length]).toEqual([1, "no-previous-promote", 1])
    expect(none.stderr).toContain("every applied promote has been rolled back")
    expect(await productionViews(dir)).toEqual(original)
  })
})
