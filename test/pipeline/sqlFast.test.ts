import { sharedDuckDbConnection } from "../support/duckdb"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import * as fc from "fast-check"
import { allKeywords, fastReferencesOf, fastTableReferences, serializeBatch, type TableRef } from "../../src/services/Project/sql"

/**
 * The fast reader against DuckDB's parser (the reference): whenever the fast reader answers,
 * DuckDB must accept the same text as one SELECT and find exactly the same tables.
 */

const connection = sharedDuckDbConnection()

/** DuckDB's answer for each text: the tables, or its error message. */
const reference = async (sqls: ReadonlyArray<string>): Promise<Array<Either.Either<ReadonlyArray<TableRef>, string>>> => {
  const serialized = await serializeBatch(connection(), sqls)
  return serialized.map((s) =>
    Either.mapLeft(Effect.runSync(Effect.either(fastReferencesOf(s.json, s.statementCount, "m"))), (e) => e.problems[0]?.detail ?? "?")
  )
}

/** Fast answers that DuckDB contradicts (rejects, or reads other tables); also how many the fast reader answered. */
const disagreements = async (sqls: ReadonlyArray<string>) => {
  const expected = await reference(sqls)
  const wrong: Array<{ sql: string; fast: ReadonlyArray<TableRef>; duckdb: unknown }> = []
  let answered = 0
  sqls.forEach((sql, i) => {
    const fast = fastTableReferences(sql)
    if (fast === undefined) return
    answered++
    const ref = expected[i]!
    if (Either.isLeft(ref) || JSON.stringify(ref.right) !== JSON.stringify(fast)) {
      wrong.push({ sql, fast, duckdb: Either.isLeft(ref) ? ref.left : ref.right })
    }
  })
  return { wrong, answered }
}

// ---- generated SQL -------------------------------------------------------------------------

/**
 * A grammar of SELECTs. `wild` mixes in forms the fast reader must leave to DuckDB (keywords
 * as names, lambdas, parameters, `EXCLUDE`, bad frames …); without it, most texts are ones the
 * fast reader answers, so its answers are checked on many shapes.
 */
const grammar = (wild: boolean) => {
  const pick = (good: ReadonlyArray<string>, bad: ReadonlyArray<string>) =>
    wild ? fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...good) }, { weight: 1, arbitrary: fc.constantFrom(...bad) }) : fc.constantFrom(...good)
  const ident = pick(
    ["a", "b", "t", "x1", "Orders", "orders", "events", "id", "k", "base", "name", "type", "value", "day", "range", "key", "data", '"Mixed Case"', '"we""ird"', '"select"'],
    ["timestamp", "position", "interval", "exists", "values", "row", "coalesce", "select", "from", "order", "left", "join", "natural", "on", "filter", "over", "all", '""']
  )
  // A bare column alias must be a plain identifier; keywords there are left to DuckDB.
  const bareAlias = wild ? ident : fc.constantFrom("a", "b", "total", "x1", '"Mixed Case"')
  const tableName = fc.array(ident, { minLength: 1, maxLength: wild ? 4 : 3 }).map((parts) => parts.join("."))
  const literal = pick(
    ["1", "42", "2.5", ".5", "1e3", "'s'", "'it''s'", "NULL", "TRUE", "false", "DATE '2024-01-01'", "TIMESTAMP '2024-01-01 00:00:00'", "INTERVAL 1 DAY", "INTERVAL '2 hours'", "INTERVAL '1' month"],
    ["1abc", "1_000", "0x1F", "E'x'", "$1", "?", "[1, 2]", "{'a': 1}", "x -> x + 1", "f(x := 1)", "list[1]", "count(DISTINCT *)", "extract(epoch FROM d)", "'a' 'b'"]
  )
  const typeName = pick(["INTEGER", "bigint", "VARCHAR", "varchar(10)", "DECIMAL(10, 2)", "double", "DATE", "timestamp", "BOOLEAN", "text"], ["nosuchtype", "INTEGER[]", "double precision", "varchar(1, 2, 3)"])
  const binary = pick(["+", "-", "*", "/", "%", "||", "=", "<>", "!=", "<", "<=", ">", ">=", "AND", "OR", "LIKE", "NOT LIKE", "ILIKE"], ["==", "IS", "^", "//", "->", "GLOB", "SIMILAR TO"])
  const functionName = pick(["upper", "sum", "count", "coalesce", "nullif", "left", "range", "greatest", "lower"], ["if", "extract", "exists", "row", "trim", "operator"])
  const frame = pick(
    ["", " ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW", " ROWS 2 PRECEDING", " RANGE BETWEEN 1 PRECEDING AND 1 FOLLOWING", " ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING"],
    [" ROWS BETWEEN 2 FOLLOWING AND CURRENT ROW", " ROWS BETWEEN CURRENT ROW AND UNBOUNDED PRECEDING", " GROUPS 1 PRECEDING", " ROWS UNBOUNDED FOLLOWING"]
  )

  const expression = (depth: number): fc.Arbitrary<string> => {
    const leaf = fc.oneof(literal, ident, fc.tuple(ident, ident).map(([a, b]) => `${a}.${b}`))
    if (depth <= 0) return leaf
    const e = expression(depth - 1)
    const sub = selectOf(depth - 1)
    return fc.oneof(
      { weight: 6, arbitrary: leaf },
      { weight: 4, arbitrary: fc.tuple(e, binary, e).map(([l, op, r]) => `${l} ${op} ${r}`) },
      { weight: 1, arbitrary: e.map((x) => `NOT ${x}`) },
      { weight: 1, arbitrary: e.map((x) => `-${x}`) },
      { weight: 1, arbitrary: e.map((x) => `(${x})`) },
      { weight: 1, arbitrary: fc.tuple(e, fc.boolean()).map(([x, not]) => `${x} IS ${not ? "NOT " : ""}NULL`) },
      { weight: 1, arbitrary: fc.tuple(e, e, e, fc.boolean()).map(([x, lo, hi, not]) => `${x} ${not ? "NOT " : ""}BETWEEN ${lo} AND ${hi}`) },
      { weight: 1, arbitrary: fc.tuple(e, fc.array(e, { minLength: wild ? 0 : 1, maxLength: 3 })).map(([x, list]) => `${x} IN (${list.join(", ")})`) },
      { weight: 1, arbitrary: fc.tuple(e, sub).map(([x, q]) => `${x} NOT IN (${q})`) },
      { weight: 1, arbitrary: sub.map((q) => `EXISTS (${q})`) },
      { weight: 1, arbitrary: sub.map((q) => `(${q})`) },
      {
        weight: 1,
        arbitrary: fc
          .tuple(fc.option(e, { nil: undefined }), e, e, fc.option(e, { nil: undefined }))
          .map(([subject, w, t, otherwise]) => `CASE ${subject ?? ""} WHEN ${w} THEN ${t}${otherwise === undefined ? "" : ` ELSE ${otherwise}`} END`)
      },
      { weight: 1, arbitrary: fc.tuple(e, typeName, fc.boolean()).map(([x, t, fn]) => (fn ? `CAST(${x} AS ${t})` : `${x}::${t}`)) },
      {
        weight: 2,
        arbitrary: fc
          .tuple(functionName, fc.array(e, { minLength: wild ? 0 : 2, maxLength: 2 }), fc.boolean())
          .map(([f, args, distinct]) => `${f}(${distinct && args.length > 0 ? "DISTINCT " : ""}${args.join(", ")})`)
      },
      { weight: 1, arbitrary: fc.constantFrom("count(*)", "extract(year FROM d)", "coalesce(a, b, c)", "nullif(a, 0)") },
      {
        weight: 1,
        arbitrary: fc
          .tuple(fc.constantFrom("row_number()", "sum(x)", "count(*)", "lag(x, 1)"), fc.option(e, { nil: undefined }), fc.option(e, { nil: undefined }), frame, fc.boolean())
          .map(([f, p, o, fr, filter]) => `${f}${filter && wild ? " FILTER (WHERE x > 1)" : ""} OVER (${p === undefined ? "" : `PARTITION BY ${p} `}${o === undefined ? "" : `ORDER BY ${o} DESC NULLS LAST`}${fr})`)
      }
    )
  }

  const selectOf = (depth: number): fc.Arbitrary<string> => {
    const e = expression(Math.max(0, depth - 1))
    const sub = depth <= 0 ? fc.constantFrom("SELECT 1 AS id", "SELECT id FROM s.t") : selectOf(depth - 1)
    const alias = fc.option(fc.tuple(fc.boolean(), ident).map(([as, a]) => `${as ? "AS " : ""}${a}`), { nil: undefined, freq: 2 })
    const tableFunction = pick(["range(10)", "range(1, 5)", "read_csv('x.csv')", "generate_series(1, 3) g(v)", "LATERAL (SELECT 1)"], ["'file.parquet'", "(VALUES (1)) v(a)", "t TABLESAMPLE 10%", "t USING SAMPLE 5"])
    const primary = fc.oneof(
      { weight: 5, arbitrary: fc.tuple(tableName, alias).map(([t, a]) => `${t}${a === undefined ? "" : ` ${a}`}`) },
      { weight: 1, arbitrary: fc.tuple(sub, alias).map(([q, a]) => `(${q})${a === undefined ? "" : ` ${a}`}`) },
      { weight: 1, arbitrary: fc.tuple(tableFunction, alias).map(([f, a]) => `${f}${a === undefined ? "" : ` ${a}`}`) }
    )
    const joinKind = pick(["JOIN", "INNER JOIN", "LEFT JOIN", "LEFT OUTER JOIN", "RIGHT JOIN", "FULL OUTER JOIN"], ["SEMI JOIN", "ASOF JOIN", "POSITIONAL JOIN"])
    const join = fc.oneof(
      fc.tuple(joinKind, primary, pick([" USING (id)", " ON a.id = b.id", " USING (id, k)"], ["", " ON", " USING ()"])).map(([kind, p, on]) => ` ${kind} ${p}${on}`),
      fc.tuple(pick(["CROSS JOIN", "NATURAL JOIN", "NATURAL LEFT JOIN", ","], ["CROSS JOIN t ON true", "NATURAL JOIN t USING (id)"]), primary).map(([kind, p]) => (kind === "," ? `, ${p}` : ` ${kind} ${p}`))
    )
    const from = fc.tuple(primary, fc.array(join, { maxLength: 2 })).map(([p, js]) => `${p}${js.join("")}`)
    const target = fc.oneof(
      { weight: 1, arbitrary: pick(["*", "t.*", '"Mixed Case".*'], ["* EXCLUDE (a)", "COLUMNS('a')", "* REPLACE (1 AS a)", "a.b.*"]) },
      {
        weight: 4,
        arbitrary: fc
          .tuple(e, fc.option(fc.oneof(ident.map((a) => `AS ${a}`), bareAlias), { nil: undefined }))
          .map(([x, a]) => (a === undefined ? x : `${x} ${a}`))
      }
    )
    const cteNames = wild ? ident : fc.constantFrom("c1", "c2", "base", "Orders")
    const ctes = fc.option(fc.tuple(fc.boolean(), fc.array(fc.tuple(cteNames, sub, fc.constantFrom("", "MATERIALIZED ", "NOT MATERIALIZED ")), { minLength: 1, maxLength: 2 })), {
      nil: undefined,
      freq: 3
    })
    const optional = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined, freq: 2 })
    return fc
      .record({
        ctes,
        distinct: pick(["", "", "DISTINCT ", "ALL ", "DISTINCT ON (a) "], ["DISTINCT ON a "]),
        targets: fc.array(target, { minLength: 1, maxLength: 3 }),
        from: optional(from),
        where: optional(e),
        group: optional(fc.oneof(fc.constant("ALL"), e)),
        having: optional(e),
        qualify: optional(e),
        setOp: optional(fc.tuple(pick(["UNION", "UNION ALL", "EXCEPT", "INTERSECT", "UNION BY NAME", "UNION ALL BY NAME"], ["UNION BY", "MINUS"]), sub)),
        order: optional(fc.oneof(fc.constant("ALL"), e.map((x) => `${x} ASC`))),
        limit: pick(["", " LIMIT 10", " LIMIT 5 OFFSET 2", " OFFSET 1"], [" LIMIT 10%", " LIMIT ALL", " FETCH FIRST 1 ROW ONLY"])
      })
      .map((q) => {
        const withClause =
          q.ctes === undefined ? "" : `WITH ${q.ctes[0] && wild ? "RECURSIVE " : ""}${q.ctes[1].map(([n, b, m]) => `${n} AS ${m}(${b})`).join(", ")} `
        return (
          `${withClause}SELECT ${q.distinct}${q.targets.join(", ")}` +
          (q.from === undefined ? "" : ` FROM ${q.from}`) +
          (q.where === undefined ? "" : ` WHERE ${q.where}`) +
          (q.group === undefined ? "" : ` GROUP BY ${q.group}`) +
          (q.having === undefined ? "" : ` HAVING ${q.having}`) +
          (q.qualify === undefined ? "" : ` QUALIFY ${q.qualify}`) +
          (q.setOp === undefined ? "" : wild ? ` ${q.setOp[0]} ${q.setOp[1]}` : ` ${q.setOp[0]} (${q.setOp[1]})`) +
          (q.order === undefined ? "" : ` ORDER BY ${q.order}`) +
          q.limit
        )
      })
  }
  return selectOf
}

const cleanSelect = grammar(false)
const wildSelect = grammar(true)

const vocabulary = ["", ",", "(", ")", "SELECT", "FROM", "AS", "=", "NOT", "AND", ";", "JOIN", "ON", "'s'", "1", "x", "--", "/*", "*/", "'", '"', "::", ":", ".", "*", "WITH", "a b"]

/** Small edits of a text's space-separated words: most yield SQL DuckDB rejects. */
const mutated = (sql: fc.Arbitrary<string>) =>
  fc.tuple(sql, fc.array(fc.tuple(fc.nat(), fc.constantFrom("drop", "dup", "swap", "insert", "glue"), fc.constantFrom(...vocabulary)), { minLength: 1, maxLength: 3 })).map(([text, edits]) => {
    const words = text.split(" ")
    for (const [n, kind, word] of edits) {
      const i = n % words.length
      if (kind === "drop") words.splice(i, 1)
      else if (kind === "dup") words.splice(i, 0, words[i]!)
      else if (kind === "swap" && i + 1 < words.length) [words[i], words[i + 1]] = [words[i + 1]!, words[i]!]
      else if (kind === "insert") words.splice(i, 0, word)
      else if (kind === "glue" && i + 1 < words.length) words.splice(i, 2, `${words[i]}${words[i + 1]}`)
    }
    return words.join(" ")
  })

/** Layout: statements with comments and line breaks between words, and trailing semicolons. */
const laidOut = (sql: fc.Arbitrary<string>) =>
  fc.tuple(sql, fc.constantFrom(" ", "\n", "\t", " /* note */ ", " -- note\n"), fc.constantFrom("", ";", " ;\n", ";;", "; SELECT 2", "\n-- end")).map(
    ([text, gap, end]) => `${text.split(" ").join(gap)}${end}`
  )

const generated = fc.oneof(
  { weight: 3, arbitrary: laidOut(cleanSelect(2)) },
  { weight: 2, arbitrary: laidOut(wildSelect(2)) },
  { weight: 2, arbitrary: mutated(cleanSelect(2)) },
  { weight: 1, arbitrary: mutated(wildSelect(2)) }
)

describe("fast SQL reference reader", () => {
  it("knows exactly DuckDB's keywords and their categories", async () => {
    const reader = await connection().runAndReadAll("SELECT keyword_name, keyword_category FROM duckdb_keywords()")
    const duckdb = new Map(reader.getRowsJS().map(([name, category]) => [String(name), String(category)]))
    expect(new Map(allKeywords())).toEqual(duckdb)
  })

  it("agrees with DuckDB for every keyword in every identifier position", async () => {
    const templates = [
      "SELECT K FROM t", "SELECT a + K FROM t", "SELECT t.K FROM t", "SELECT a FROM K", "SELECT a FROM K.t", "SELECT a FROM s.K",
      "SELECT a FROM t AS K", "SELECT a FROM t K", "SELECT a FROM t K JOIN u USING (id)", "SELECT a FROM t K WHERE a = 1",
      "SELECT a FROM (SELECT 1 AS a) K", "SELECT a AS K FROM t", "SELECT a K FROM t", "SELECT K(a) FROM t", "SELECT * FROM K(1)",
      "WITH K AS (SELECT 1) SELECT * FROM K", "SELECT * FROM t JOIN u USING (K)", "SELECT f(K) FROM t", "SELECT K 'x'", "SELECT K()",
      "SELECT a FROM t ORDER BY K", "SELECT K.* FROM t K", "SELECT count(*) K FROM t", "SELECT 1 FROM t GROUP BY K", "SELECT x::K FROM t"
    ]
    const sqls = templates.flatMap((template) => [...allKeywords().keys()].map((k) => template.replace(/\bK\b/g, k)))
    const { wrong, answered } = await disagreements(sqls)
    expect(wrong).toEqual([])
    expect(answered).toBeGreaterThan(sqls.length / 3)
  })

  it("agrees with DuckDB on generated and mutated SQL (answers only what DuckDB accepts, with the same tables)", async () => {
    const sqls = fc.sample(generated, { numRuns: 4000, seed: 17 })
    const { wrong, answered } = await disagreements(sqls)
    expect(wrong).toEqual([])
    // The reader must be useful too: it answers for a good share of the valid generated SQL.
    expect(answered).toBeGreaterThan(500)
  })

  it("agrees with DuckDB under fresh random seeds", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(generated, { minLength: 20, maxLength: 20 }), async (sqls) => {
        const { wrong } = await disagreements(sqls)
        expect(wrong).toEqual([])
      }),
      { numRuns: 40 }
    )
  })

  it("answers for the shapes models use, as DuckDB does", async () => {
    const models = [
      "SELECT range AS id, range % 7 AS k, 'v' || range AS label FROM range(100)",
      "SELECT id, id % 7 AS k, kind AS label FROM ext.events WHERE kind <> 'noise'",
      "WITH base AS (\n  SELECT t0.id, t0.k, t0.label FROM main.m00001 t0\n  JOIN main.m00002 t1 USING (id)\n)\nSELECT id, k, upper(label) AS label, count(*) OVER (PARTITION BY k) AS n\nFROM base\nWHERE id % 3 <> 1\n  AND id IN (SELECT id FROM main.m00001 WHERE k > 2)",
      "SELECT customer, sum(amount) AS total FROM raw.orders GROUP BY customer",
      "SELECT * FROM raw.orders, main.plain",
      "SELECT d::TIMESTAMP AS day, (SELECT v FROM main.factor) AS v FROM range(TIMESTAMP '2024-01-01', TIMESTAMP '2024-01-06', INTERVAL 1 DAY) r(d) WHERE d >= '1970-01-01 00:00:00' AND d < '1970-01-01 00:00:00'",
      "select o.id, coalesce(c.name, 'unknown') as name, case when o.amount > 100 then 'big' else 'small' end as size\nfrom warehouse.raw.orders o\nleft join warehouse.raw.customers c on c.id = o.customer_id\nwhere o.created_at >= date '2024-01-01' -- recent\norder by 1",
      "SELECT 1 AS id UNION ALL SELECT 2;"
    ]
    const { wrong, answered } = await disagreements(models)
    expect(wrong).toEqual([])
    expect(answered).toBe(models.length)
  })
})
