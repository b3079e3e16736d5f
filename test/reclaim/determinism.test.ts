import { Effect } from "effect"
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import { PURE_FUNCTIONS, scanDeterminism, VOLATILE_WORDS } from "../../src/services/Reclamation/determinism"

const scan = (sqls: ReadonlyArray<string>) => Effect.runPromise(scanDeterminism(sqls))
const verdict = async (sql: string) => (await scan([sql])).get(sql)!

describe("determinism scan through DuckDB's parser", () => {
  it.each([
    ["SELECT 1 AS id, 'x' AS v", false],
    ["SELECT a, count(*) AS n FROM w.s.t GROUP BY a", false],
    ["WITH x AS (SELECT id FROM w.s.t) SELECT id + 1 AS id, CASE WHEN id > 1 THEN 'a' ELSE 'b' END AS c FROM x", false],
    ["SELECT a FROM t ORDER BY a LIMIT 3", false],
    ["SELECT i FROM generate_series(1, 3) g(i)", false],
    ["SELECT row_number() OVER (ORDER BY a) AS r, lower(b) LIKE 'x%' AS m FROM t", false],
    // comments and strings that name volatile things are not code
    ["SELECT 'now() random()' AS s -- uuid()\n", false]
  ])("pure: %s", async (sql, isVolatile) => {
    expect((await verdict(sql)).volatile).toBe(isVolatile)
  })

  it.each([
    ["SELECT random() AS r", /random/],
    ["SELECT now() AS t", /now/],
    ["SELECT current_date AS d", /current_date/],
    ["SELECT current_timestamp AS d", /current_timestamp/],
    ["SELECT gen_random_uuid() AS u", /gen_random_uuid/],
    ["SELECT uuid() AS u", /uuid/],
    ["SELECT setseed(0.5)", /setseed/],
    ["SELECT user AS u", /user/],
    ["SELECT * FROM read_csv('x.csv')", /read_csv/],
    ["SELECT * FROM read_parquet('s3://b/x.parquet')", /read_parquet/],
    ["SELECT * FROM 'data.csv'", /data\.csv/],
    ["SELECT a FROM t LIMIT 3", /LIMIT without ORDER BY/],
    ["SELECT a FROM t USING SAMPLE 10%", /SAMPLE/],
    ["SELECT (SELECT max(r) FROM (SELECT random() AS r)) AS nested", /random/],
    ["SELECT main.now()", /now/],
    ["SELECT array_agg(a) FROM t", /array_agg/],
    ["SELECT getenv('HOME')", /getenv/],
    ["SELEC broken", /not a single parseable query/],
    ["INSERT INTO t VALUES (1)", /not a single parseable query/],
    ["SELECT 1; SELECT 2", /not exactly one query/],
    ["", /empty/]
  ])("volatile: %s", async (sql, reason) => {
    const v = await verdict(sql)
    expect(v.volatile).toBe(true)
    if (v.volatile) expect(v.reason).toMatch(reason)
  })

  const column = fc.constantFrom("a", "b", "id", "amount")
  const constant = fc.oneof(fc.integer({ min: 0, max: 1000 }).map(String), fc.constantFrom("'x'", "'it''s'", "NULL", "TRUE", "1.5"))
  const pureCalls = ["lower", "upper", "abs", "coalesce", "round", "length", "md5", "greatest"].filter((f) => PURE_FUNCTIONS.has(f))
  const expr: fc.Arbitrary<string> = fc.letrec<{ e: string }>((tie) => ({
    e: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      column,
      constant,
      fc.tuple(tie("e"), fc.constantFrom("+", "-", "*", "||", "=", "<"), tie("e")).map(([l, op, r]) => `(${l} ${op} ${r})`),
      fc.tuple(fc.constantFrom(...pureCalls), tie("e")).map(([f, a]) => `${f}(${a})`),
      fc.tuple(tie("e"), tie("e"), tie("e")).map(([c, t, e]) => `CASE WHEN ${c} THEN ${t} ELSE ${e} END`),
      tie("e").map((e) => `CAST(${e} AS VARCHAR)`)
    )
  })).e
  const pureSelect = fc
    .tuple(fc.array(expr, { minLength: 1, maxLength: 4 }), fc.option(expr, { nil: undefined }))
    .map(([cols, where]) => `SELECT ${cols.map((c, i) => `${c} AS c${i}`).join(", ")} FROM w.s.t${where === undefined ? "" : ` WHERE ${where}`}`)
  const volatileCall = fc.constantFrom(...[...VOLATILE_WORDS].filter((w) => !["user", "row"].includes(w))).map((w) => `${w}()`)

  it("generated selects over pure functions and operators are deterministic; with ORDER BY a LIMIT stays so (property)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(pureSelect, { minLength: 1, maxLength: 30 }), async (sqls) => {
        const ordered = sqls.map((s) => `${s} ORDER BY ALL LIMIT 10`)
        const verdicts = await scan([...sqls, ...ordered])
        for (const s of [...sqls, ...ordered]) expect(verdicts.get(s), s).toEqual({ volatile: false })
      }),
      { numRuns: 25 }
    )
  })

  it("a volatile builtin anywhere, or LIMIT without ORDER BY, makes any generated select volatile (property)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(pureSelect, volatileCall, fc.boolean()), { minLength: 1, maxLength: 30 }),
        async (cases) => {
          const sqls = cases.map(([s, call, asWhere]) => (asWhere ? `${s}${s.includes(" WHERE ") ? " AND" : " WHERE"} ${call} IS NOT NULL` : s.replace(" FROM", `, ${call} AS v FROM`)))
          const limited = cases.map(([s]) => `${s} LIMIT 5`)
          const verdicts = await scan([...sqls, ...limited])
          for (const s of [...sqls, ...limited]) expect(verdicts.get(s)?.volatile, s).toBe(true)
        }
      ),
      { numRuns: 25 }
    )
  })

  it("arbitrary text always gets a verdict and never a defect; nothing unparseable is pure (property)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.string({ maxLength: 60 }), { minLength: 1, maxLength: 40 }), async (texts) => {
        const verdicts = await scan(texts)
        for (const t of texts) {
          const v = verdicts.get(t)
          expect(v).toBeDefined()
          if (!/^\s*(select|with|from|values|\(|table)/i.test(t.trim()) || t.trim() === "") expect(v!.volatile, JSON.stringify(t)).toBe(true)
        }
      }),
      { numRuns: 25 }
    )
  })
})
