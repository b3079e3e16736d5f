import { describe, expect, it } from "vitest"
import { physicalReferences, readersFirst, type StoreFacts } from "../../src/services/Reclamation/tables"

// A planned table is dropped before the tables its recipe reads: the reader's replayable check needs them present.

const row = (physical: string, sql: string) => ({
  physical,
  model_name: physical,
  fingerprint: "f".repeat(64),
  strategy: "full_refresh",
  run_id: "r1",
  recipe_hash: "h",
  recipe_json: JSON.stringify({ sql, strategy: { type: "full_refresh" } }),
  built_at: "2026-11-01T00:00:00.000Z"
})

const facts = (rows: ReadonlyArray<ReturnType<typeof row>>): StoreFacts => ({
  registry: new Map(rows.map((r) => [r.physical, r])),
  statuses: new Map(),
  environments: new Map(),
  rollbackTargets: new Map(),
  keepPromotions: 2
})

describe("table drops are ordered readers first", () => {
  it("puts a reader before the tables it reads, whatever the plan's order, and keeps unrelated order", () => {
    const store = facts([
      row("pcli_physical.a", "SELECT 1 AS x"),
      row("pcli_physical.b", `SELECT * FROM "pcli_physical"."a"`),
      row("pcli_physical.c", "SELECT * FROM PCLI_PHYSICAL . b JOIN pcli_physical.a USING (x)"),
      row("pcli_physical.d", "SELECT 2 AS y")
    ])
    const drops = ["pcli_physical.a", "pcli_physical.b", "pcli_physical.d", "pcli_physical.c"].map((physical) => ({ physical }))
    expect(readersFirst(drops, store).map((d) => d.physical)).toEqual(["pcli_physical.d", "pcli_physical.c", "pcli_physical.b", "pcli_physical.a"])
  })

  it("finds a physical reference however it is quoted or cased, and not inside a longer name", () => {
    expect([...physicalReferences(`SELECT * FROM "PCLI_PHYSICAL"."Marts__Clean__ab" JOIN my_pcli_physical.x USING (id)`)]).toEqual(["pcli_physical.marts__clean__ab"])
  })
})
