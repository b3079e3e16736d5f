import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import fc from "fast-check"
import { runProject } from "../../src/services/Runner/run"
import { canWiden } from "../../src/services/Runner/tests"
import { target, writeProject } from "./fixtures"
import { compileRoot, query, runtimeLayer } from "./harness"

const contract = (columns: ReadonlyArray<readonly [string, string, boolean?]>, required: ReadonlyArray<string> = []) =>
  columns.map(([name, type, nullable]) => `[[columns]]\nname = "${name}"\ntype = "${type}"\nnullable = ${nullable ?? true}\n`).join("") +
  `[rules]\nrequired = [${required.map((r) => `"${r}"`).join(", ")}]\n`

describe("contracts at run time (decisions.md item 25)", () => {
  it.live("integer literals fit any integer width, narrower types widen, a missing optional column is W010; a missing required column or a type that cannot widen fails", () => {
    const root = writeProject({
      literals: {
        sql: "SELECT 1 AS id, 7 AS small, -3 AS tiny, 2.5 AS price",
        contract: contract([["id", "BIGINT", false], ["small", "SMALLINT"], ["tiny", "Int8"], ["price", "DECIMAL(10, 2)"]], ["id"])
      },
      widened: {
        sql: "SELECT range::INTEGER AS id, range::FLOAT AS f, range::UTINYINT AS u FROM range(3)",
        contract: contract([["id", "BIGINT"], ["f", "DOUBLE"], ["u", "SMALLINT"]])
      },
      optional_missing: {
        sql: "SELECT 1 AS id",
        contract: contract([["id", "INTEGER", false], ["discount", "DOUBLE"]], ["id"])
      },
      required_missing: {
        sql: "SELECT 1 AS id",
        contract: contract([["id", "INTEGER"], ["discount", "DOUBLE"]], ["id", "discount"])
      },
      narrowing: { sql: "SELECT range AS id FROM range(3)", contract: contract([["id", "INTEGER"]]) },
      cast_not_literal: { sql: "SELECT CAST(1 AS BIGINT) AS id", contract: contract([["id", "INTEGER"]]) },
      wrong_family: { sql: "SELECT 1 AS id", contract: contract([["id", "VARCHAR"]]) }
    })
    return Effect.gen(function* () {
      const run = yield* runProject(yield* compileRoot(root), { projectRoot: root, retry: { maxRetries: 0, baseDelayMillis: 1 } })
      const byName = Object.fromEntries(run.models.map((m) => [m.model_name, m]))
      expect(byName["literals"]!.status).toBe("success")
      expect(byName["literals"]!.warnings).toEqual([])
      expect(byName["widened"]!.status).toBe("success")
      expect(byName["optional_missing"]!.status).toBe("success")
      expect(byName["optional_missing"]!.warnings).toEqual([
        "W010 contract column discount (DOUBLE) is missing from the output; it is not required"
      ])
      expect(byName["required_missing"]!.error_code).toBe("contract-violation")
      expect(byName["required_missing"]!.error_message).toBe(
        "model required_missing: contract violated: required column discount missing from the output"
      )
      expect(byName["narrowing"]!.error_message).toBe(
        "model narrowing: contract violated: column id has type BIGINT, contract says INTEGER (it cannot widen)"
      )
      expect(byName["cast_not_literal"]!.error_code).toBe("contract-violation")
      expect(byName["wrong_family"]!.error_code).toBe("contract-violation")
      const tables = yield* query("SELECT table_name FROM information_schema.tables WHERE table_schema <> 'pcli_physical' ORDER BY 1")
      expect(tables.map((r) => r[0])).toEqual(["literals", "optional_missing", "widened"])
    }).pipe(Effect.provide(runtimeLayer(root)))
  })

  it("widening is a partial order: reflexive, transitive, and never both ways between different types", () => {
    const types = ["TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT", "FLOAT", "DOUBLE", "DECIMAL(4,1)", "DECIMAL(10,2)", "DECIMAL(18,3)", "DECIMAL(38,10)", "VARCHAR", "DATE"]
    const type = fc.constantFrom(...types)
    fc.assert(
      fc.property(type, type, type, (a, b, c) => {
        expect(canWiden(a, a)).toBe(true)
        if (a !== b) expect(canWiden(a, b) && canWiden(b, a)).toBe(false)
        if (canWiden(a, b) && canWiden(b, c)) expect(canWiden(a, c)).toBe(true)
      })
    )
    expect(canWiden("INTEGER", "Int64")).toBe(true)
    expect(canWiden("BIGINT", "INTEGER")).toBe(false)
    expect(canWiden("UBIGINT", "BIGINT")).toBe(false)
    expect(canWiden("INTEGER", "DECIMAL(10, 0)")).toBe(true)
    expect(canWiden("BIGINT", "DOUBLE")).toBe(false)
  })
})
