// pcli ls, lineage and test through the binary: on the playground (with selectors), on a project
// built to exercise column lineage (CTE, join, SELECT *, what the parser cannot settle), and bad input.
import { execFileSync } from "node:child_process"
import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeProject, runCli } from "../support/cli"

const json = async (args: ReadonlyArray<string>, cwd: string) => {
  const r = await runCli([...args, "--output", "json"], { cwd })
  return { ...r, out: r.stdout === "" ? undefined : JSON.parse(r.stdout) }
}
const names = (out: { models: ReadonlyArray<{ name: string }> }) => out.models.map((m) => m.name)

const sidecar = (name: string, schema = "raw", extra = "") => `name = "${name}"\n${extra}\n[target]\ncatalog = "w"\nschema = "${schema}"\ntable = "${name}"\n`

let scratch: string
let pg: string
/** The playground as written, before any command ran in it: `pcli test` builds and edits a copy. */
let pristinePlayground: string

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), "pcli-inspect-"))
  expect((await runCli(["playground", "pg"], { cwd: scratch })).code).toBe(0)
  pg = join(scratch, "pg")
  pristinePlayground = join(scratch, "pristine")
  cpSync(pg, pristinePlayground, { recursive: true })
}, 120_000)
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

describe("pcli ls", () => {
  it("lists every model in execution order with strategy, target, tags, contract and test counts", async () => {
    const r = await json(["ls"], pg)
    expect(r.code, r.stderr).toBe(0)
    expect(r.out).toMatchObject({ command: "ls", select: [], count: 7 })
    expect(names(r.out)).toEqual(["raw_customers", "raw_orders", "stg_customers", "stg_orders", "mart_customer_ltv", "mart_daily_revenue", "revenue_by_region"])
    expect(r.out.models[2]).toEqual({
      name: "stg_customers",
      target: "warehouse.staging.stg_customers",
      strategy: "full_refresh",
      layer: "staging",
      tags: { layer: "staging" },
      contracted: true,
      contract_columns: 2,
      tests: 2,
      depends_on: ["raw_customers"],
      path: "models/stg_customers.sql"
    })
    const text = await runCli(["ls"], { cwd: pg })
    expect(text.stdout).toMatch(/^MODEL +STRATEGY +TARGET +TAGS +CONTRACT +TESTS\n/)
    expect(text.stdout).toMatch(/stg_customers +full_refresh +warehouse\.staging\.stg_customers +layer=staging +2 cols +2\n/)
  })

  it("selects as dbt does: +model, model+, N+, @, tag:, path:, spaces unite, commas intersect", async () => {
    const pick = async (...select: ReadonlyArray<string>) => {
      const r = await json(["ls", ...select.flatMap((s) => ["--select", s])], pg)
      expect(r.code, r.stderr).toBe(0)
      return names(r.out)
    }
    expect(await pick("+mart_customer_ltv")).toEqual(["raw_customers", "raw_orders", "stg_customers", "stg_orders", "mart_customer_ltv"])
    expect(await pick("1+mart_customer_ltv")).toEqual(["stg_customers", "stg_orders", "mart_customer_ltv"])
    expect(await pick("stg_orders+")).toEqual(["stg_orders", "mart_customer_ltv", "mart_daily_revenue", "revenue_by_region"])
    expect(await pick("@stg_customers")).toEqual(["raw_customers", "raw_orders", "stg_customers", "stg_orders", "mart_customer_ltv", "revenue_by_region"])
    expect(await pick("tag:layer=staging")).toEqual(["stg_customers", "stg_orders"])
    expect(await pick("path:models/raw_*")).toEqual(["raw_customers", "raw_orders"])
    expect(await pick("raw_orders mart_daily_revenue")).toEqual(["raw_orders", "mart_daily_revenue"])
    expect(await pick("tag:layer=mart,+stg_customers+")).toEqual(["mart_customer_ltv", "revenue_by_region"])
    expect(await pick("stg_customers", "stg_orders")).toEqual(["stg_customers", "stg_orders"])
    expect(await pick("tag:layer=gold")).toEqual([])
  })
})

describe("pcli lineage on the playground", () => {
  it("gives models up and down with distances, and each output column's source columns", async () => {
    const r = await json(["lineage", "mart_customer_ltv"], pg)
    expect(r.code, r.stderr).toBe(0)
    expect(r.out).toMatchObject({ command: "lineage", model: "mart_customer_ltv", direction: "both", depth: null, downstream: [], columns_unresolved: [] })
    expect(r.out.upstream).toEqual([
      { model: "stg_customers", distance: 1 },
      { model: "stg_orders", distance: 1 },
      { model: "raw_customers", distance: 2 },
      { model: "raw_orders", distance: 2 }
    ])
    expect(r.out.columns).toEqual([
      { name: "customer_id", reads: [{ kind: "model", relation: "stg_customers", column: "customer_id" }], unresolved: [] },
      { name: "region", reads: [{ kind: "model", relation: "stg_customers", column: "region" }], unresolved: [] },
      { name: "orders", reads: [{ kind: "model", relation: "stg_orders", column: "order_id" }], unresolved: [] },
      { name: "lifetime_value", reads: [{ kind: "model", relation: "stg_orders", column: "amount" }], unresolved: [] }
    ])
    // DuckDB's parse is kept by SQL hash: a second lineage over unchanged SQL reads it back, to the same answer.
    expect(existsSync(join(pg, ".pcli", "lineage-cache.json"))).toBe(true)
    expect((await json(["lineage", "mart_customer_ltv"], pg)).stdout).toBe(r.stdout)
    const near = await json(["lineage", "mart_customer_ltv", "--upstream", "--depth", "1"], pg)
    expect(near.out.upstream.map((n: { model: string }) => n.model)).toEqual(["stg_customers", "stg_orders"])
    expect(near.out).not.toHaveProperty("downstream")
  })

  it("traces one column upstream to its origin and downstream to what reads it", async () => {
    const up = await json(["lineage", "mart_customer_ltv", "--column", "customer_id", "--upstream"], pg)
    expect(up.out.column.upstream).toEqual([
      { kind: "model", relation: "stg_customers", column: "customer_id", distance: 1 },
      { kind: "model", relation: "raw_customers", column: "customer_id", distance: 2 },
      { kind: "function", relation: "range()", column: "range", distance: 3 }
    ])
    const down = await json(["lineage", "stg_orders", "--column", "amount", "--downstream"], pg)
    expect(down.out.column.downstream).toEqual([
      { kind: "model", relation: "mart_customer_ltv", column: "lifetime_value", distance: 1 },
      { kind: "model", relation: "mart_daily_revenue", column: "revenue", distance: 1 },
      { kind: "model", relation: "revenue_by_region", column: "revenue", distance: 1 }
    ])
    const joinKey = await json(["lineage", "stg_orders", "--column", "customer_id", "--downstream"], pg)
    // The join reads it (USING), though no output column comes from it.
    expect(joinKey.out.column).toMatchObject({ downstream: [], read_by: [{ model: "mart_customer_ltv", distance: 1 }, { model: "revenue_by_region", distance: 1 }] })
    const text = await runCli(["lineage", "stg_orders", "--column", "amount"], { cwd: pg })
    expect(text.stdout).toContain("read into: mart_customer_ltv.lifetime_value, mart_daily_revenue.revenue, revenue_by_region.revenue")
  })
})

const lineageProject = () =>
  makeProject({
    "pcli.toml": `[adapter.local]\ntype = "embedded"\n`,
    "models/events.sql": "SELECT 1 AS user_id, 2 AS session_id, 'x' AS kind",
    "models/events.toml": sidecar("events"),
    "models/users.sql": "SELECT 1 AS user_id, 'n' AS name",
    "models/users.toml": sidecar("users"),
    "models/via_cte.sql": "WITH e AS (SELECT user_id AS uid, kind FROM raw.events) SELECT uid, upper(kind) AS kind_upper FROM e",
    "models/via_cte.toml": sidecar("via_cte", "m"),
    "models/joined.sql": "SELECT e.user_id, u.name, kind FROM raw.events e JOIN raw.users u ON e.user_id = u.user_id WHERE e.session_id > 0",
    "models/joined.toml": sidecar("joined", "m"),
    "models/starred.sql": "SELECT * EXCLUDE (kind) FROM raw.events JOIN raw.users USING (user_id)",
    "models/starred.toml": sidecar("starred", "m"),
    "models/using_join.sql": "SELECT user_id, name FROM raw.events JOIN raw.users USING (user_id)",
    "models/using_join.toml": sidecar("using_join", "m"),
    "models/outside.sql": "SELECT * FROM ext.feed",
    "models/outside.toml": sidecar("outside", "m", '[[sources]]\nschema = "ext"\ntable = "feed"\n'),
    "models/ambiguous.sql": "SELECT user_id, name FROM raw.events, raw.users",
    "models/ambiguous.toml": sidecar("ambiguous", "m"),
    "models/scalar.sql": "SELECT (SELECT max(user_id) FROM raw.users) AS top, kind FROM raw.events",
    "models/scalar.toml": sidecar("scalar", "m")
  })

describe("column lineage from DuckDB's parsed SQL", () => {
  let cwd: string
  beforeAll(() => {
    cwd = lineageProject()
  })
  const columnsOf = async (model: string) => {
    const r = await json(["lineage", model], cwd)
    expect(r.code, r.stderr).toBe(0)
    return r.out
  }
  const from = (relation: string, column: string) => ({ kind: "model", relation, column })

  it("follows a column through a CTE", async () => {
    expect((await columnsOf("via_cte")).columns).toEqual([
      { name: "uid", reads: [from("events", "user_id")], unresolved: [] },
      { name: "kind_upper", reads: [from("events", "kind")], unresolved: [] }
    ])
  })

  it("resolves qualified and unqualified columns across a join, and what the join reads", async () => {
    expect((await columnsOf("joined")).columns).toEqual([
      { name: "user_id", reads: [from("events", "user_id")], unresolved: [] },
      { name: "name", reads: [from("users", "name")], unresolved: [] },
      { name: "kind", reads: [from("events", "kind")], unresolved: [] }
    ])
    // users.user_id is read by the join condition, events.session_id by the filter.
    const trace = await json(["lineage", "users", "--column", "user_id", "--downstream"], cwd)
    expect(trace.out.column.read_by.map((n: { model: string }) => n.model)).toContain("joined")
    const filter = await json(["lineage", "events", "--column", "session_id", "--downstream"], cwd)
    expect(filter.out.column.read_by.map((n: { model: string }) => n.model)).toContain("joined")
  })

  it("expands SELECT * over models whose columns it knows (EXCLUDE and USING applied)", async () => {
    expect((await columnsOf("starred")).columns).toEqual([
      { name: "user_id", reads: [from("events", "user_id")], unresolved: [] },
      { name: "session_id", reads: [from("events", "session_id")], unresolved: [] },
      { name: "name", reads: [from("users", "name")], unresolved: [] }
    ])
    // An unqualified USING column is the left side's, as DuckDB binds it.
    expect((await columnsOf("using_join")).columns[0]).toEqual({ name: "user_id", reads: [from("events", "user_id")], unresolved: [] })
  })

  it("says unresolved, never guesses: a star over a table it cannot see, an ambiguous name, a scalar subquery", async () => {
    const outside = await columnsOf("outside")
    expect(outside.columns).toBeNull()
    expect(outside.columns_unresolved).toEqual(["SELECT * over ext.feed, whose columns are not known"])
    const ambiguous = await columnsOf("ambiguous")
    expect(ambiguous.columns).toEqual([
      { name: "user_id", reads: [], unresolved: ["column user_id could come from events or users"] },
      { name: "name", reads: [from("users", "name")], unresolved: [] }
    ])
    const scalar = await columnsOf("scalar")
    expect(scalar.columns[0]).toEqual({ name: "top", reads: [], unresolved: ["a subquery inside an expression"] })
    const text = await runCli(["lineage", "outside"], { cwd })
    expect(text.stdout).toContain("columns: unresolved (SELECT * over ext.feed, whose columns are not known)")
    // A trace through a model whose columns are not known says so.
    const through = await json(["lineage", "ambiguous", "--column", "user_id", "--upstream"], cwd)
    expect(through.out.column).toEqual({ name: "user_id", upstream: [], unresolved: [{ model: "ambiguous", reason: "user_id: column user_id could come from events or users" }] })
  })
})

describe("pcli test", () => {
  it("runs the data tests against what is built, without building; a model not built fails it", async () => {
    const fresh = mkdtempSync(join(tmpdir(), "pcli-inspect-test-"))
    try {
      const cwd = join(fresh, "p")
      cpSync(pristinePlayground, cwd, { recursive: true })
      const before = await json(["test", "--select", "stg_orders"], cwd)
      expect(before.code).toBe(1)
      expect(before.out).toMatchObject({ command: "test", not_built: 1, models: [{ model: "stg_orders", status: "not_built" }] })
      expect(before.stderr).toMatch(/^error\[tests-failed\]: 1 model\(s\) not built\n$/)
      // Read-only: a warehouse that was never built is not created by looking at it.
      expect(existsSync(join(cwd, ".pcli", "warehouse.duckdb"))).toBe(false)
      expect((await runCli(["run"], { cwd })).code).toBe(0)
      const all = await json(["test"], cwd)
      expect(all.code, all.stderr).toBe(0)
      expect(all.out).toMatchObject({ tests: 14, passed: 14, failed: 0, warned: 0, errored: 0, not_built: 0 })
      const staging = await json(["test", "--select", "tag:layer=staging"], cwd)
      expect(staging.out.models.map((m: { model: string }) => m.model)).toEqual(["stg_customers", "stg_orders"])
      expect(staging.out.models[1].tests.map((t: { test: string }) => t.test)).toEqual(["not_null(customer_id)", "unique(order_id)", "expression(amount > 0)", "row_count_range(1..)"])
      // A failing test is reported with its offending rows, and nothing is rebuilt.
      writeFileSync(join(cwd, "models", "stg_orders.toml"), `name = "stg_orders"\n[target]\ncatalog = "warehouse"\nschema = "staging"\ntable = "stg_orders"\n[tags]\nlayer = "staging"\n\n[[tests]]\ntype = "expression"\nexpression = "amount > 100"\n`)
      const failing = await json(["test", "--select", "stg_orders"], cwd)
      expect(failing.code).toBe(1)
      expect(failing.out.models[0].tests[0]).toMatchObject({ test: "expression(amount > 100)", status: "fail" })
      expect(failing.out.models[0].tests[0].failing).toBeGreaterThan(0)
    } finally {
      rmSync(fresh, { recursive: true, force: true })
    }
  }, 120_000)

  it("a test naming a missing column fails with the test's name and the column, in test and in run", async () => {
    const cwd = makeProject({
      "pcli.toml": `[adapter.local]\ntype = "embedded"\n`,
      "models/t.sql": "SELECT 1 AS id",
      "models/t.toml": `${sidecar("t")}\n[[tests]]\ntype = "not_null"\ncolumn = "user_id"\n`
    })
    const run = await json(["run"], cwd)
    expect(run.code).toBe(1)
    expect(JSON.stringify(run.out)).toContain("model t: test not_null(user_id) names column user_id, which the model does not output (it has id)")
    // Built without the test, then tested with it.
    writeFileSync(join(cwd, "models", "t.toml"), sidecar("t"))
    expect((await runCli(["run"], { cwd })).code).toBe(0)
    writeFileSync(join(cwd, "models", "t.toml"), `${sidecar("t")}\n[[tests]]\ntype = "unique"\ncolumn = "user_id"\n`)
    const tested = await json(["test"], cwd)
    expect(tested.code).toBe(1)
    expect(tested.out.models[0].tests[0]).toEqual({
      test: "unique(user_id)",
      severity: "error",
      status: "error",
      detail: "model t: test unique(user_id) names column user_id, which the model does not output (it has id)"
    })
  }, 120_000)
})

describe("--select on run and plan, and bad input", () => {
  it("run builds only what --select picks; a selection matching nothing is refused", async () => {
    const cwd = lineageProject()
    const r = await json(["run", "--select", "+via_cte"], cwd)
    expect(r.code, r.stderr).toBe(0)
    expect(r.out.models.map((m: { model_name: string }) => m.model_name).sort()).toEqual(["events", "via_cte"])
    const none = await runCli(["run", "--select", "tag:layer=nope"], { cwd })
    expect(none.code).toBe(1)
    expect(none.stderr).toMatch(/^error\[selection-empty\]: .*\n$/)
    const plan = await runCli(["plan", "--select", "nope+"], { cwd })
    expect(plan.code).toBe(1)
    expect(plan.stderr).toMatch(/^error\[model-not-found\]: --select names model "nope"/)
  }, 120_000)

  it("one line, a stable code, exit 1 for bad values; exit 2 for usage errors", async () => {
    const cases: ReadonlyArray<readonly [ReadonlyArray<string>, number, string]> = [
      [["lineage", "nope"], 1, "model-not-found"],
      [["lineage", "stg_orders", "--depth", "0"], 1, "depth-invalid"],
      [["lineage", "stg_orders", "--depth", "two"], 1, "depth-invalid"],
      [["lineage", "stg_orders", "--column", "nope"], 1, "column-not-found"],
      [["ls", "--select", "++stg_orders"], 1, "selector-invalid"],
      [["ls", "--select", "colour:red"], 1, "selector-invalid"],
      [["ls", "--select", "nope"], 1, "model-not-found"],
      [["test", "--select", "tag:"], 1, "selector-invalid"],
      [["test", "--select", "tag:nope"], 1, "selection-empty"],
      [["lineage", "stg_orders", "--upstream", "--downstream"], 2, "usage"],
      [["ls", "--bogus"], 2, "usage"]
    ]
    for (const [args, exit, code] of cases) {
      const r = await runCli(args, { cwd: pg })
      expect(r.code, args.join(" ")).toBe(exit)
      expect(r.stderr, args.join(" ")).toMatch(new RegExp(`^error\\[${code}\\]: [^\\n]+\\n$`))
      const j = await runCli([...args, "--output", "json"], { cwd: pg })
      expect(JSON.parse(j.stdout).error.code, args.join(" ")).toBe(code)
    }
  }, 120_000)
})

describe("review shows impact", () => {
  it("a breaking column change lists the downstream models that read it", async () => {
    const cwd = makeProject({
      "pcli.toml": `[adapter.local]\ntype = "embedded"\n`,
      ".gitignore": ".pcli/\nmodels/.pcli-state.sqlite*\n",
      "models/events_clean.sql": "SELECT 1 AS user_id, 2 AS event_id, DATE '2024-01-01' AS day",
      "models/events_clean.toml": sidecar("events_clean", "clean"),
      "models/daily_users.sql": "SELECT day, count(DISTINCT user_id) AS users FROM clean.events_clean GROUP BY day",
      "models/daily_users.toml": sidecar("daily_users", "mart"),
      "models/daily_active_users.sql": "SELECT e.day FROM clean.events_clean e WHERE e.user_id IS NOT NULL",
      "models/daily_active_users.toml": sidecar("daily_active_users", "mart"),
      "models/event_count.sql": "SELECT count(event_id) AS n FROM clean.events_clean",
      "models/event_count.toml": sidecar("event_count", "mart")
    })
    const git = (...args: Array<string>) => execFileSync("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", ...args], { cwd, stdio: ["ignore", "pipe", "pipe"] })
    git("init", "-q")
    git("add", ".")
    git("commit", "-qm", "base")
    writeFileSync(join(cwd, "models", "events_clean.sql"), "SELECT 2 AS event_id, DATE '2024-01-01' AS day")
    const plan = await json(["plan", "--base", "HEAD"], cwd)
    expect(plan.code, plan.stderr).toBe(0)
    const review = await json(["review", plan.out.plan_id], cwd)
    expect(review.out.breaking_changes).toEqual([
      { model: "events_clean", finding: { kind: "column_removed", column: "user_id" }, read_by: ["daily_active_users", "daily_users"] }
    ])
    const text = await runCli(["review", plan.out.plan_id], { cwd })
    expect(text.stdout).toContain("BREAKING: events_clean column_removed user_id — read by daily_active_users, daily_users\n")
  }, 120_000)

  it("a gc plan's review lists what it evicts", async () => {
    const cwd = makeProject({
      "pcli.toml": `[adapter.local]\ntype = "embedded"\n`,
      "models/stable.sql": "SELECT 1 AS id, 'x' AS v",
      "models/stable.toml": `${sidecar("stable", "s")}\n[strategy]\ntype = "content_addressed"\nstorage_prefix = "artifacts"\n`
    })
    expect((await runCli(["run"], { cwd })).code).toBe(0)
    const gc = await json(["gc", "--derivable", "--min-age-days", "0"], cwd)
    expect(gc.code, gc.stderr).toBe(0)
    const review = await json(["review", gc.out.plan_id], cwd)
    expect(review.out.evictions).toEqual(gc.out.evictions)
    expect(review.out.evictions).toMatchObject([{ model_name: "stable" }])
    const text = await runCli(["review", gc.out.plan_id], { cwd })
    expect(text.stdout).toContain(`evicts 1 artifact (${gc.out.total_bytes} bytes; restorable with pcli restore):\n  stable  ${gc.out.evictions[0].file_path}`)
  }, 120_000)
})
