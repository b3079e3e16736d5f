import { sharedDuckDbConnection } from "../support/duckdb"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import * as fc from "fast-check"
import {
  fastReferencesOf,
  parseReferences,
  parseReferencesWithDuckDb,
  referencesOf,
  scanSerializedStatement,
  serializeBatch,
  type SerializedStatement,
  skipValue
} from "../../src/services/Project/sql"

const connection = sharedDuckDbConnection()

/** Identifiers including ones that collide with serializer field names or need quoting/escaping. */
const plainName = fc.constantFrom("a", "b", "Orders", "ORDERS", "base", "x1", "events", "t", "BASE_TABLE", "cte_map", "type")
const quotedName = fc.constantFrom('"we""ird"', '"back\\slash"', '"BASE_TABLE"', '"{\\"type\\":\\"BASE_TABLE\\",}"', '"cte_map"', '"Mixed Case"')
const ident = fc.oneof({ weight: 4, arbitrary: plainName }, { weight: 1, arbitrary: quotedName })
const tableName = fc
  .tuple(fc.option(ident, { nil: undefined }), fc.option(ident, { nil: undefined }), ident)
  .map(([c, s, t]) => (s === undefined ? t : c === undefined ? `${s}.${t}` : `${c}.${s}.${t}`))
const literal = fc.constantFrom(
  "'plain'",
  `'{"type":"BASE_TABLE","table_name":"fake"}'`,
  `'"cte_map":{"map":[{"key":"z"}]}'`,
  "'back\\\\slash\"'",
  "'BASE_TABLE'",
  "42"
)

const selectOf = (depth: number): fc.Arbitrary<string> => {
  const from =
    depth <= 0
      ? tableName
      : fc.oneof(
          tableName,
          fc.tuple(tableName, tableName).map(([l, r]) => `${l} JOIN ${r} USING (id)`),
          selectOf(depth - 1).map((q) => `(${q}) AS sub`)
        )
  const where = fc.option(
    depth <= 0
      ? literal.map((l) => `WHERE x = ${l}`)
      : fc.oneof(literal.map((l) => `WHERE x = ${l}`), selectOf(depth - 1).map((q) => `WHERE x IN (${q})`)),
    { nil: undefined }
  )
  const ctes = fc.option(
    fc.array(fc.tuple(ident, depth <= 0 ? fc.constant("SELECT 1 AS id") : selectOf(depth - 1)), { minLength: 1, maxLength: 2 }),
    { nil: undefined }
  )
  return fc.tuple(ctes, from, where, fc.boolean(), tableName).map(([cteList, f, w, union, other]) => {
    const names = new Set<string>()
    const withClause =
      cteList === undefined
        ? ""
        : `WITH ${cteList
            .filter(([name]) => !names.has(name.toLowerCase()) && names.add(name.toLowerCase()))
            .map(([name, body]) => `${name} AS (${body})`)
            .join(", ")} `
    const body = `SELECT * FROM ${f}${w === undefined ? "" : ` ${w}`}`
    return `${withClause}${body}${union ? ` UNION ALL SELECT * FROM ${other}` : ""}`
  })
}

const statement = fc.oneof(
  { weight: 8, arbitrary: selectOf(2) },
  { weight: 1, arbitrary: fc.tuple(selectOf(1), selectOf(1)).map(([a, b]) => `${a}; ${b}`) },
  { weight: 1, arbitrary: fc.constantFrom("SELEC 1 FROM", "SELECT FROM WHERE", "CREATE TABLE t (a INT)") }
)

const serialize = (sqls: ReadonlyArray<string>): Promise<ReadonlyArray<SerializedStatement>> =>
  serializeBatch(connection(), sqls)

const both = (s: SerializedStatement) => ({
  full: Effect.runSync(Effect.either(referencesOf(s.json, "m"))),
  fast: Effect.runSync(Effect.either(fastReferencesOf(s.json, s.statementCount, "m")))
})

describe("fast reference extraction", () => {
  it("agrees with the full-AST walk on generated SQL (tables, CTEs, errors)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(statement, { minLength: 1, maxLength: 8 }), async (sqls) => {
        const serialized = await serialize(sqls)
        for (const s of serialized) {
          const { fast, full } = both(s)
          expect(fast).toEqual(full)
        }
      }),
      { numRuns: 150 }
    )
  })

  it("compact serialization (no null/empty fields) gives the same references and errors as the full one", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(statement, { minLength: 1, maxLength: 8 }), async (sqls) => {
        const compact = await serializeBatch(connection(), sqls, true)
        const full = await serializeBatch(connection(), sqls, false)
        for (let i = 0; i < sqls.length; i++) {
          expect(compact[i]!.statementCount).toBe(full[i]!.statementCount)
          expect(both(compact[i]!).fast).toEqual(both(full[i]!).full)
        }
      }),
      { numRuns: 150 }
    )
  })

  it("decodes only table objects on the fast path, and the generated shapes do take it", async () => {
    const [s] = await serialize([
      "WITH Base AS (SELECT * FROM cat.sch.a JOIN b USING (id)) SELECT * FROM base, main.Orders WHERE x IN (SELECT y FROM main.ORDERS)"
    ])
    const scanned = scanSerializedStatement(s!.json)
    expect(scanned).toBeDefined()
    expect(scanned!.tables.map((t) => t.table_name)).toEqual(["a", "b", "base", "Orders", "ORDERS"])
    expect([...scanned!.ctes]).toEqual(["base"])
    // the last spelling of a name wins, as in the full walk
    expect(Effect.runSync(fastReferencesOf(s!.json, s!.statementCount, "m"))).toEqual([
      { catalog: undefined, schema: undefined, table: "b" },
      { catalog: "cat", schema: "sch", table: "a" },
      { catalog: undefined, schema: "main", table: "ORDERS" }
    ])
  })

  it("falls back to the full walk when a string literal spells a serializer key", async () => {
    const [s] = await serialize([`SELECT '{"type":"BASE_TABLE"}' AS x, 'cte_map' FROM t`])
    expect(scanSerializedStatement(s!.json)).toBeUndefined()
    const { fast, full } = both(s!)
    expect(fast).toEqual(full)
    expect(Either.getOrThrow(fast)).toEqual([{ catalog: undefined, schema: undefined, table: "t" }])
  })

  it("skipValue honours escapes inside strings", () => {
    const text = '{"a":"x\\"}","b":["\\\\",{"c":"]"}]}tail'
    expect(text.slice(0, skipValue(text, 0))).toBe('{"a":"x\\"}","b":["\\\\",{"c":"]"}]}')
    expect(skipValue('{"open":', 0)).toBe(-1)
  })

  it.effect("parseReferences lists every failing model, in input order, across batches and lanes (DuckDB and the fast reader alike)", () =>
    Effect.gen(function* () {
      const items = Array.from({ length: 1600 }, (_, i) => ({
        model: `m${i}`,
        sql: i === 1200 ? "SELECT 1; SELECT 2" : i === 1300 ? "SELEC 1" : `SELECT * FROM main.t${i} JOIN s.u USING (id)`
      }))
      for (const parse of [parseReferences, parseReferencesWithDuckDb]) {
        const error = yield* Effect.flip(parse(items))
        expect(error._tag).toBe("ModelSqlInvalid")
        if (error._tag !== "ModelSqlInvalid") return
        expect(error.problems.map((p) => p.model)).toEqual(["m1200", "m1300"])
        expect(error.message.split("\n")).toEqual([
          "2 models failed to compile: m1200, m1300",
          "  m1200: a model must be a single SELECT query (found 2 statements)",
          '  m1300:1: syntax error at or near "SELEC"'
        ])
        const ok = yield* parse(items.filter((_, i) => i !== 1200 && i !== 1300))
        expect(ok.size).toBe(1598)
        expect(ok.get("m1599")).toEqual([
          { catalog: undefined, schema: "main", table: "t1599" },
          { catalog: undefined, schema: "s", table: "u" }
        ])
      }
    })
  )
})
