import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { readPhysicalTables } from "../../src/services/Runner/directReads"
import { runProject } from "../../src/services/Runner/run"
import { bodyOf, sqlHash } from "../../src/services/Runner/strategies"
import { target, writeProject } from "./fixtures"
import { compileRoot, countingWarehouse, query, runtimeLayer } from "./harness"

const src = { view: { catalog: "warehouse", schema: "raw", table: "src" }, physical: `"pcli_physical"."raw__src__ab"` }
const other = { view: { catalog: "warehouse", schema: "raw", table: "other" }, physical: `"pcli_physical"."raw__other__cd"` }

describe("reading upstreams from their physical tables", () => {
  it("names the table as the reference did: its own name, or the alias that follows", () => {
    expect(readPhysicalTables("SELECT id FROM raw.src", [src])).toBe(`SELECT id FROM "pcli_physical"."raw__src__ab" AS "src"`)
    expect(readPhysicalTables("SELECT t.id FROM raw.src t WHERE t.id > 1", [src])).toBe(`SELECT t.id FROM "pcli_physical"."raw__src__ab" t WHERE t.id > 1`)
    expect(readPhysicalTables(`SELECT * FROM "RAW"."Src" AS s JOIN raw.other USING (id)`, [src, other])).toBe(
      `SELECT * FROM "pcli_physical"."raw__src__ab" AS s JOIN "pcli_physical"."raw__other__cd" AS "other" USING (id)`
    )
    expect(readPhysicalTables("SELECT * FROM warehouse.raw.src\nWHERE true", [src])).toBe(`SELECT * FROM "pcli_physical"."raw__src__ab" AS "src"\nWHERE true`)
    expect(readPhysicalTables("SELECT * FROM (SELECT id FROM raw.src)", [src])).toBe(`SELECT * FROM (SELECT id FROM "pcli_physical"."raw__src__ab" AS "src")`)
  })

  it("leaves an upstream to its view when its name is used otherwise", () => {
    for (const sql of [
      "SELECT raw.src.id FROM raw.src", // schema.table.column
      "SELECT src.id FROM raw.src JOIN raw.other USING (id)", // table.column
      "SELECT 'raw.src' AS s, id FROM raw.src", // a literal
      "WITH src AS (SELECT 1 AS id) SELECT * FROM src, raw.src", // a CTE of that name
      "SELECT id AS src FROM raw.src", // a column of that name
      "SELECT 'read raw.src now' AS s, id FROM raw.src", // inside a literal
      "SELECT 'it''s raw.src ok' AS s, id FROM raw.src", // inside a literal with an escaped quote
      "SELECT $$raw.src $$ AS s, id FROM raw.src" // dollar quoting: unsure
    ]) {
      expect(readPhysicalTables(sql, [src])).toBe(sql)
    }
    // The other upstream is still read directly.
    expect(readPhysicalTables("SELECT src.id FROM raw.src JOIN raw.other o USING (id)", [src, other])).toBe(
      `SELECT src.id FROM raw.src JOIN "pcli_physical"."raw__other__cd" o USING (id)`
    )
    expect(readPhysicalTables("SELECT * FROM raw.source", [src])).toBe("SELECT * FROM raw.source")
    // Literals, quoted identifiers and comments elsewhere do not stop it.
    expect(readPhysicalTables(`SELECT 'it''s' AS "q'", id FROM raw.src -- don't\nWHERE id > 0`, [src])).toBe(
      `SELECT 'it''s' AS "q'", id FROM "pcli_physical"."raw__src__ab" -- don't\nWHERE id > 0`
    )
  })

  it.live("a run executes the direct reads, builds the same rows and records the model's own SQL", () => {
    const anti =
      "SELECT t0.id FROM raw.src t0 WHERE EXISTS (SELECT 1 FROM raw.other t1 WHERE t1.id = t0.id) AND NOT EXISTS (SELECT 1 FROM raw.other t2 WHERE t2.id = t0.id + 3)"
    const qualified = "SELECT src.id, other.id AS o FROM raw.src JOIN raw.other ON src.id = other.id"
    const root = writeProject({
      src: { sql: "SELECT range AS id FROM range(10)", toml: target("raw", "src") },
      other: { sql: "SELECT range * 2 AS id FROM range(10)", toml: target("raw", "other") },
      anti: { sql: anti, toml: target("mart", "anti") },
      qualified: { sql: qualified, toml: target("mart", "qualified") }
    })
    const counting = countingWarehouse()
    return Effect.gen(function* () {
      const project = yield* compileRoot(root)
      const run = yield* runProject(project, { projectRoot: root }).pipe(Effect.provide(counting.layer))
      expect(run.status).toBe("success")
      // ids in 0..9 that are even (in other) and whose id + 3 is not in other (always: odd): 0, 2, 4, 6, 8.
      expect(yield* query("SELECT id FROM mart.anti ORDER BY id")).toEqual([[0n], [2n], [4n], [6n], [8n]])
      expect((yield* query("SELECT count(*) FROM mart.qualified"))[0]).toEqual([5n])
      const built = (marker: string) => counting.seen.filter((s) => s.includes("CREATE") && s.includes(marker)).join("\n")
      expect(built("t0.id + 3")).toMatch(/FROM "pcli_physical"\."raw__src__[0-9a-f]+" t0/)
      expect(built("t0.id + 3")).not.toContain("raw.other")
      // `src.id` names the table: that model reads through the views, as written.
      expect(built("other.id AS o")).toContain("FROM raw.src JOIN raw.other")
      const record = run.models.find((m) => m.model_name === "anti")!
      expect(record.sql_hash).toBe(sqlHash(bodyOf(anti)))
    }).pipe(Effect.provide(Layer.fresh(runtimeLayer(root))))
  })
})
