import { DuckDBInstance } from "@duckdb/node-api"
import fc from "fast-check"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { readBranchTables } from "../../src/services/Runner/branchReads"
import { runCli } from "../support/cli"
import { environmentProject } from "../support/environments"

// A branch build reads its upstreams' branch tables (decision 37); a string literal naming one is data and stays.

const raw = { catalog: "w", schema: "staging", table: "raw" }
const relation = '"pcli_physical"."staging__raw__0123456789abcdef"'
const rewrite = (sql: string) => readBranchTables(sql, [{ view: raw, relation }])

describe("readBranchTables", () => {
  it("rewrites each reference, in any spelling, and leaves literals and longer names alone", () => {
    expect(rewrite("SELECT 'staging.raw' AS src, id FROM staging.raw")).toBe(`SELECT 'staging.raw' AS src, id FROM ${relation}`)
    expect(rewrite('SELECT * FROM "staging"."raw" JOIN W.Staging.Raw USING (id)')).toBe(`SELECT * FROM ${relation} JOIN ${relation} USING (id)`)
    expect(rewrite("SELECT 'it''s staging.raw' FROM staging.raw_archive, xstaging.raw")).toBe("SELECT 'it''s staging.raw' FROM staging.raw_archive, xstaging.raw")
  })

  it("rewrites everything when it cannot tell the literals apart ($ quoting), as before", () => {
    expect(rewrite("SELECT $$staging.raw$$ FROM staging.raw")).toBe(`SELECT $$${relation}$$ FROM ${relation}`)
  })

  it("over generated SQL, every literal comes out as written and every reference outside one is rewritten", () => {
    const reference = fc.constantFrom("staging.raw", '"staging"."raw"', "w.staging.raw", "STAGING.RAW", 'w."staging".raw')
    const text = fc.array(fc.oneof(reference, fc.constantFrom("it''s", "x", " ", ".", "raw", "staging")), { maxLength: 5 }).map((parts) => parts.join(""))
    const fragment = fc.oneof(
      reference.map((r) => ({ sql: r, expected: relation })),
      text.map((t) => ({ sql: `'${t}'`, expected: `'${t}'` })),
      fc.constantFrom("SELECT", "id", ",", "FROM", "JOIN", "staging.raw_x", "(", ")").map((w) => ({ sql: w, expected: w }))
    )
    fc.assert(
      fc.property(fc.array(fragment, { maxLength: 12 }), (fragments) => {
        expect(rewrite(fragments.map((f) => f.sql).join(" "))).toBe(fragments.map((f) => f.expected).join(" "))
      })
    )
  })
})

it("through the binary: a branch build of a model whose literal names its upstream keeps the literal", async () => {
  const dir = environmentProject("literals")
  writeFileSync(join(dir, "models", "clean.sql"), "SELECT id, 'from staging.raw' AS src FROM staging.raw")
  const cli = (args: ReadonlyArray<string>) => runCli(args, { cwd: dir, env: { PCLI_PRINCIPAL: "human", PCLI_PRINCIPAL_ID: "alice" } })
  expect((await cli(["run"])).code).toBe(0)
  expect((await cli(["branch", "create", "feat"])).code).toBe(0)
  writeFileSync(join(dir, "models", "raw.sql"), "SELECT i AS id, 'v' || i AS v FROM range(1, 4) t(i)")
  const branchRun = await cli(["run", "--branch", "feat"])
  expect(branchRun.code, branchRun.stderr).toBe(0)
  const instance = await DuckDBInstance.create(join(dir, ".pcli", "warehouse.duckdb"), { access_mode: "READ_ONLY" })
  const connection = await instance.connect()
  try {
    const rows = (await connection.runAndReadAll("SELECT DISTINCT src, count(*) OVER () FROM marts__feat.clean")).getRows()
    expect(rows.map((r) => [r[0], Number(r[1])])).toEqual([["from staging.raw", 3]])
  } finally {
    connection.closeSync()
    instance.closeSync()
  }
})
