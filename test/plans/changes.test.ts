import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { ModelFiles } from "../../src/schemas/plans"
import { diffRevisions } from "../../src/services/Plans/diff"
import type { Revision } from "../../src/services/Plans/revisions"
import { sidecar } from "./harness"

const files = (sql: string, extra = "", contract: string | null = null): ModelFiles => ({ sql, sidecar: sidecar("m", { sql, extra }), contract })

const contract = (...cols: Array<[string, string, boolean?]>) =>
  cols.map(([name, type, nullable]) => `[[columns]]\nname = "${name}"\ntype = "${type}"\nnullable = ${nullable ?? true}\n`).join("\n")

/** Classifies one model's change from `before` to `after` (undefined = absent). */
const classify = (before: ModelFiles | undefined, after: ModelFiles | undefined) =>
  Effect.map(
    diffRevisions(
      new Map(before === undefined ? [] : [["m", before]]) as Revision,
      new Map(after === undefined ? [] : [["m", after]]) as Revision,
      ["m"],
      {}
    ),
    (changes) => changes[0]
  )

describe("change classification (DuckDB's parser + the contract)", () => {
  it.effect("a new model is additive; a removed one is breaking", () =>
    Effect.gen(function* () {
      const added = yield* classify(undefined, files("SELECT 1 AS id"))
      expect(added?.change_class).toBe("schema_change.additive")
      expect(added?.findings).toEqual([{ kind: "model_added" }])
      const removed = yield* classify(files("SELECT 1 AS id"), undefined)
      expect(removed?.change_class).toBe("schema_change.breaking")
      expect(removed?.findings).toEqual([{ kind: "model_removed" }])
    })
  )

  it.effect("adding a column is additive; dropping one from the SELECT is breaking", () =>
    Effect.gen(function* () {
      const add = yield* classify(files("SELECT id, name FROM t"), files("SELECT id, name, upper(name) AS loud FROM t"))
      expect(add?.change_class).toBe("schema_change.additive")
      expect(add?.findings).toEqual([{ kind: "column_added", column: "loud" }])
      const drop = yield* classify(files("SELECT id, email FROM t"), files("SELECT id FROM t"))
      expect(drop?.change_class).toBe("schema_change.breaking")
      expect(drop?.findings).toEqual([{ kind: "column_removed", column: "email" }])
    })
  )

  it.effect("a changed filter or expression is a value change; re-indenting and comments change no class", () =>
    Effect.gen(function* () {
      const filter = yield* classify(files("SELECT id FROM t WHERE id > 1"), files("SELECT id FROM t WHERE id > 2"))
      expect(filter?.change_class).toBe("value_change")
      expect(filter?.findings).toEqual([{ kind: "sql_body_changed" }])
      const expr = yield* classify(files("SELECT id * 2 AS x FROM t"), files("SELECT id * 3 AS x FROM t"))
      expect(expr?.change_class).toBe("value_change")
      const format = yield* classify(files("SELECT id FROM t"), files("-- tidy\nSELECT\n  id\nFROM t\n"))
      expect(format?.findings).toEqual([{ kind: "text_changed" }])
      expect(format?.change_class).toBe("value_change")
      // Adding a column while changing the values of the others is at least a value change.
      const both = yield* classify(files("SELECT id FROM t WHERE id > 1"), files("SELECT id, 1 AS one FROM t"))
      expect(both?.change_class).toBe("value_change")
    })
  )

  it.effect("a spelled-out type change is breaking; a `*` hides columns, so only the body changes", () =>
    Effect.gen(function* () {
      const retype = yield* classify(files("SELECT CAST(id AS INTEGER) AS id FROM t"), files("SELECT CAST(id AS VARCHAR) AS id FROM t"))
      expect(retype?.findings).toEqual([{ kind: "column_type_changed", column: "id", from: "INTEGER", to: "VARCHAR" }])
      expect(retype?.change_class).toBe("schema_change.breaking")
      const widen = yield* classify(files("SELECT CAST(id AS INT) AS id FROM t"), files("SELECT CAST(id AS INTEGER) AS id FROM t"))
      expect(widen?.change_class).not.toBe("schema_change.breaking")
      const star = yield* classify(files("SELECT *, 1 AS one FROM t"), files("SELECT * FROM t"))
      expect(star?.findings).toEqual([{ kind: "sql_body_changed" }])
    })
  )

  it.effect("the contract decides what a `*` cannot show: removed or retyped contract columns are breaking", () =>
    Effect.gen(function* () {
      const before = files("SELECT * FROM t", "", contract(["id", "BIGINT"], ["email", "VARCHAR"]))
      const dropped = yield* classify(before, files("SELECT * EXCLUDE (email) FROM t", "", contract(["id", "BIGINT"])))
      expect(dropped?.change_class).toBe("schema_change.breaking")
      expect(dropped?.findings).toContainEqual({ kind: "column_removed", column: "email" })
      const retyped = yield* classify(before, files("SELECT * FROM t", "", contract(["id", "VARCHAR"], ["email", "VARCHAR"])))
      expect(retyped?.findings).toEqual([{ kind: "column_type_changed", column: "id", from: "BIGINT", to: "VARCHAR" }])
      const loosened = yield* classify(
        files("SELECT * FROM t", "", contract(["id", "BIGINT", false])),
        files("SELECT * FROM t", "", contract(["id", "BIGINT", true]))
      )
      expect(loosened?.findings).toEqual([{ kind: "column_nullability_loosened", column: "id" }])
      const added = yield* classify(before, files("SELECT * FROM t", "", contract(["id", "BIGINT"], ["email", "VARCHAR"], ["age", "INTEGER"])))
      expect(added?.change_class).toBe("schema_change.additive")
      const removedContract = yield* classify(before, files("SELECT * FROM t"))
      expect(removedContract?.findings).toEqual([{ kind: "contract_removed" }])
    })
  )

  it.effect("sidecar edits: a new target is breaking; tests or tags are a value change; unchanged models are not listed", () =>
    Effect.gen(function* () {
      const before = files("SELECT 1 AS id")
      const moved = yield* classify(before, { ...before, sidecar: before.sidecar.replace('schema = "main"', 'schema = "gold"') })
      expect(moved?.findings).toEqual([{ kind: "target_changed", from: "warehouse.main.m", to: "warehouse.gold.m" }])
      const tagged = yield* classify(before, files("SELECT 1 AS id", 'tags = { layer = "bronze" }'))
      expect(tagged?.findings).toEqual([{ kind: "metadata_changed", detail: "sidecar changed" }])
      expect(tagged?.change_class).toBe("value_change")
      expect(yield* classify(before, before)).toBeUndefined()
    })
  )
})
