import { DuckDBInstance } from "@duckdb/node-api"
import { SqlClient } from "@effect/sql"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { Effect } from "effect"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { copyProject, makeProject, runCli } from "../support/cli"
import { environmentProject, sidecar } from "../support/environments"

// Reclamation of environment tables (issue 34 item 4) through the binary, each outcome read from DuckDB's own catalog.

const human = { PCLI_PRINCIPAL: "human", PCLI_PRINCIPAL_ID: "alice" }

const project = (extra = "") => environmentProject("envgc", extra)
/** pcli.toml as `project(extra)` writes it. */
const configure = (dir: string, extra: string) => writeFileSync(join(dir, "pcli.toml"), `[project]\nname = "envgc"\n[adapter.local]\ntype = "embedded"\n${extra}`)
/** The edit of clean.sql the dropped branch of the shared fixture ran. */
const branchEdit = "SELECT id, lower(v) AS v FROM staging.raw"
/** The shared fixture's spawns run once per file; on a shared 2-core machine that can take minutes. */
const SLOW = 300_000

const cli = (dir: string, args: ReadonlyArray<string>) => runCli(args, { cwd: dir, env: human })
const json = async (dir: string, args: ReadonlyArray<string>) => {
  const r = await cli(dir, [...args, "--output", "json"])
  return { ...r, out: r.stdout === "" ? undefined : JSON.parse(r.stdout) }
}

/** DuckDB's catalog once the binary has exited: physical tables, and every view with whether a SELECT from it resolves. */
const catalog = async (dir: string, statement?: string) => {
  const instance = await DuckDBInstance.create(join(dir, ".pcli", "warehouse.duckdb"))
  const connection = await instance.connect()
  const rows = async (sql: string) => (await connection.runAndReadAll(sql)).getRows()
  try {
    if (statement !== undefined) await connection.run(statement)
    const tables = (await rows("SELECT schema_name || '.' || table_name FROM duckdb_tables() WHERE schema_name = 'pcli_physical' ORDER BY 1")).map((r) => String(r[0]))
    const views = (await rows("SELECT schema_name, view_name FROM duckdb_views() WHERE NOT internal ORDER BY 1, 2")).map((r) => [String(r[0]), String(r[1])] as const)
    const unresolved: Array<string> = []
    for (const [schema, view] of views) {
      try {
        await connection.runAndReadAll(`SELECT count(*) FROM "${schema}"."${view}"`)
      } catch {
        unresolved.push(`${schema}.${view}`)
      }
    }
    const sqls = Object.fromEntries((await rows("SELECT schema_name || '.' || view_name, sql FROM duckdb_views() WHERE NOT internal")).map(([k, v]) => [String(k), String(v)]))
    return { tables, views: views.map(([s, v]) => `${s}.${v}`), unresolved, sqls: sqls as Record<string, string> }
  } finally {
    connection.closeSync()
    instance.closeSync()
  }
}

const store = (dir: string, text: string) =>
  Effect.runPromise(
    Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe<Record<string, unknown>>(text)).pipe(
      Effect.provide(SqliteClient.layer({ filename: join(dir, "models", ".pcli-state.sqlite") }))
    )
  )

interface TableCandidate {
  readonly physical: string
  readonly model_name: string | null
  readonly derivable: boolean
  readonly checks: ReadonlyArray<{ readonly check: string; readonly passed: boolean; readonly detail: string }>
}

const inventory = async (dir: string) => {
  const r = await json(dir, ["gc", "--derivable", "--dry-run", "--min-age-days", "0"])
  expect(r.code, r.stderr).toBe(0)
  return r.out.tables as ReadonlyArray<TableCandidate>
}

const unreferenced = (t: TableCandidate) => t.checks.find((c) => c.check === "unreferenced")!

/** Runs a branch with an edit of clean.sql, then drops it: its two tables (clean, total) are left to reclamation. */
const droppedBranch = async (dir: string, name: string, sql: string) => {
  expect((await cli(dir, ["branch", "create", name])).code).toBe(0)
  writeFileSync(join(dir, "models", "clean.sql"), sql)
  const run = await cli(dir, ["run", "--branch", name])
  expect(run.code, run.stderr).toBe(0)
  const built = await catalog(dir)
  expect((await cli(dir, ["branch", "drop", name])).code).toBe(0)
  writeFileSync(join(dir, "models", "clean.sql"), "SELECT id, upper(v) AS v FROM staging.raw")
  return built.tables
}

const planGc = async (dir: string) => {
  const plan = await json(dir, ["gc", "--derivable", "--min-age-days", "0"])
  expect(plan.code, plan.stderr).toBe(0)
  return plan.out as { plan_id: string; table_drops: ReadonlyArray<{ physical: string; model_name: string; kind: string }> }
}

/** Branch `name` with clean.sql edited, run, its promote approved and applied, the branch dropped: the promote's plan id. */
const promote = async (dir: string, name: string, sql: string) => {
  await cli(dir, ["branch", "create", name])
  writeFileSync(join(dir, "models", "clean.sql"), sql)
  expect((await cli(dir, ["run", "--branch", name])).code).toBe(0)
  const planId = /^Plan ([0-9a-f]{64})/m.exec((await cli(dir, ["plan", "--promote", name])).stdout)![1]!
  expect((await cli(dir, ["review", planId, "--approve"])).code).toBe(0)
  expect((await cli(dir, ["apply", planId])).code).toBe(0)
  expect((await cli(dir, ["branch", "drop", name])).code).toBe(0)
  return planId
}

const approveAndApply = async (dir: string, planId: string) => {
  expect((await cli(dir, ["review", planId, "--approve"])).code).toBe(0)
  const applied = await json(dir, ["apply", planId])
  expect(applied.code, applied.stderr).toBe(0)
  return applied.out as {
    tables_dropped: ReadonlyArray<{ physical: string }>
    tables_refused: ReadonlyArray<{ physical: string; reason: string; failed_checks: ReadonlyArray<{ check: string; detail: string }> }>
  }
}

describe("gc of environment tables (issue 34 item 4)", () => {
  // Built once, copied per test: production run (its catalog in `prod`); then either branch feat run
  // with `branchEdit` and dropped (`withBranch`: the catalog's tables before the drop), or branch a
  // promoted with `SELECT id, v` and dropped (`firstPromote`: its plan id).
  let produced = ""
  let dropped = ""
  let promotedOnce = ""
  let prod: Awaited<ReturnType<typeof catalog>>
  let withBranch: ReadonlyArray<string> = []
  let firstPromote = ""
  beforeAll(async () => {
    produced = project()
    expect((await cli(produced, ["run"])).code).toBe(0)
    prod = await catalog(produced)
    dropped = copyProject(produced)
    withBranch = await droppedBranch(dropped, "feat", branchEdit)
    promotedOnce = copyProject(produced)
    firstPromote = await promote(promotedOnce, "a", "SELECT id, v FROM staging.raw")
  }, SLOW)

  it("a dropped branch's tables become candidates and are dropped after approval; production's never are, and every view still resolves", async () => {
    const dir = copyProject(dropped)
    expect(prod.tables).toHaveLength(3)
    const branchTables = withBranch.filter((t) => !prod.tables.includes(t))
    expect(branchTables).toHaveLength(2)

    const tables = await inventory(dir)
    expect(tables.map((t) => t.physical).sort()).toEqual([...withBranch].sort())
    expect(tables.filter((t) => t.derivable).map((t) => t.physical).sort()).toEqual([...branchTables].sort())
    for (const t of tables.filter((t) => prod.tables.includes(t.physical))) {
      expect(t.derivable).toBe(false)
      expect(unreferenced(t)).toMatchObject({ passed: false })
      expect(unreferenced(t).detail).toMatch(/environment prod's view/)
    }
    for (const t of tables.filter((t) => t.derivable)) {
      expect(t.checks.map((c) => c.check)).toEqual(["recipe_recorded", "recipe_produces_output", "replayable", "unreferenced", "policy_allows", "age_threshold"])
    }

    const plan = await planGc(dir)
    expect(plan.table_drops.map((d) => d.physical).sort()).toEqual([...branchTables].sort())
    expect(plan.table_drops.every((d) => d.kind === "physical_table")).toBe(true)
    // The review names them as tables to DROP, apart from artifact evictions.
    const review = await cli(dir, ["review", plan.plan_id])
    expect(review.stdout).toMatch(/drops 2 physical tables no environment reads \(DROP TABLE/)
    for (const t of branchTables) expect(review.stdout).toContain(t)
    expect(review.stdout).not.toMatch(/evicts \d+ artifact/)
    // Nothing is dropped before approval: gc is an agent's action at the gate.
    const unapproved = await json(dir, ["apply", plan.plan_id])
    expect(unapproved.out.error.code).toBe("marker-missing")
    expect((await catalog(dir)).tables).toEqual(withBranch)

    const applied = await approveAndApply(dir, plan.plan_id)
    expect(applied.tables_dropped.map((d) => d.physical).sort()).toEqual([...branchTables].sort())
    expect(applied.tables_refused).toEqual([])
    const after = await catalog(dir)
    expect(after.tables).toEqual(prod.tables)
    expect(after.views).toEqual(prod.views)
    expect(after.unresolved).toEqual([])
    const tombstones = await store(dir, "SELECT physical, plan_id FROM table_tombstones ORDER BY physical")
    expect(tombstones).toEqual([...branchTables].sort().map((physical) => ({ physical, plan_id: plan.plan_id })))
    expect(await store(dir, "SELECT physical FROM physical_tables ORDER BY physical")).toEqual(prod.tables.map((physical) => ({ physical })))
    // restore rebuilds artifacts, not tables: a dropped table's name gets its own code and the way back.
    const restore = await json(dir, ["restore", branchTables[0]!])
    expect([restore.code, restore.out.error.code]).toEqual([1, "restore-table-dropped"])
    expect(restore.out.error.message).toMatch(/pcli run --branch/)
    // Nothing left to reclaim: no plan.
    expect((await json(dir, ["gc", "--derivable", "--min-age-days", "0"])).out).toMatchObject({ eviction_count: 0, review_required: false })
    // A run of the dropped fingerprint builds the table again under its name.
    expect((await cli(dir, ["branch", "create", "again"])).code).toBe(0)
    writeFileSync(join(dir, "models", "clean.sql"), branchEdit)
    expect((await cli(dir, ["run", "--branch", "again"])).code).toBe(0)
    expect((await catalog(dir)).tables).toEqual(withBranch)
  })

  it("the rollback target of the last promote is never collected: gc after a promote, then rollback resolves every view", async () => {
    const dir = copyProject(promotedOnce)
    // Production's clean and total left for the branch's: the old ones are only the rollback target now.
    const oldProd = prod.tables.filter((t) => !t.includes("staging__raw"))
    const promoted = await catalog(dir)
    const feat2Tables = (await droppedBranch(dir, "feat2", "SELECT id, v || '?' AS v FROM staging.raw")).filter((t) => !promoted.tables.includes(t))
    expect(feat2Tables).toHaveLength(2)

    const tables = await inventory(dir)
    for (const t of tables.filter((t) => oldProd.includes(t.physical))) {
      expect(t.derivable).toBe(false)
      expect(unreferenced(t).detail).toMatch(/rollback target of promotion/)
    }
    const plan = await planGc(dir)
    const planned = plan.table_drops.map((d) => d.physical)
    for (const t of [...oldProd, ...prod.tables]) expect(planned).not.toContain(t)
    expect([...planned].sort()).toEqual([...feat2Tables].sort())
    const applied = await approveAndApply(dir, plan.plan_id)
    expect(applied.tables_dropped).toHaveLength(2)
    const after = await catalog(dir)
    for (const t of prod.tables) expect(after.tables).toContain(t)
    expect(after.unresolved).toEqual([])

    expect((await cli(dir, ["rollback"])).code).toBe(0)
    const rolledBack = await catalog(dir)
    expect(rolledBack.unresolved).toEqual([])
    expect(rolledBack.sqls["marts.clean"]).toBe(prod.sqls["marts.clean"])
  })

  it("[gc] keep_promotions: two promotions keep their tables by default; with 1, the tables only the older promote swapped from are collected", async () => {
    const dir = copyProject(promotedOnce)
    const first = firstPromote
    const afterFirst = await catalog(dir)
    await promote(dir, "b", "SELECT id, lower(v) AS v FROM staging.raw")
    const original = prod.tables.filter((t) => !t.includes("staging__raw"))
    const firstTables = afterFirst.tables.filter((t) => !prod.tables.includes(t))
    expect([original.length, firstTables.length]).toEqual([2, 2])

    const kept = await inventory(dir)
    for (const t of kept.filter((t) => original.includes(t.physical))) {
      expect(t.derivable).toBe(false)
      expect(unreferenced(t).detail).toContain(`rollback target of promotion ${first.slice(0, 12)} (keep_promotions = 2)`)
    }
    expect((await json(dir, ["gc", "--derivable", "--min-age-days", "0"])).out).toMatchObject({ review_required: false })

    writeFileSync(join(dir, "pcli.toml"), `[project]\nname = "envgc"\n[adapter.local]\ntype = "embedded"\n[gc]\nkeep_promotions = 1\n`)
    const one = await inventory(dir)
    expect(one.filter((t) => t.derivable).map((t) => t.physical).sort()).toEqual([...original].sort())
    for (const t of one.filter((t) => firstTables.includes(t.physical))) expect(unreferenced(t).detail).toMatch(/keep_promotions = 1/)
    const applied = await approveAndApply(dir, (await planGc(dir)).plan_id)
    expect(applied.tables_dropped.map((d) => d.physical).sort()).toEqual([...original].sort())
    // The last promote can still be rolled back: its tables were kept.
    expect((await cli(dir, ["rollback"])).code).toBe(0)
    const rolledBack = await catalog(dir)
    expect(rolledBack.unresolved).toEqual([])
    expect(rolledBack.sqls["marts.clean"]).toBe(afterFirst.sqls["marts.clean"])
  })

  it("a table that becomes referenced between plan and apply is refused at apply (a warehouse view, an environment); the rest proceed", async () => {
    const dir = copyProject(dropped)
    const [cleanTable] = withBranch.filter((t) => !prod.tables.includes(t) && t.includes("marts__clean"))
    const plan = await planGc(dir)
    expect(plan.table_drops).toHaveLength(2)
    // A view made outside pcli reads the branch's clean table: only the warehouse's catalog knows.
    await catalog(dir, `CREATE SCHEMA IF NOT EXISTS analytics; CREATE VIEW analytics.keep AS SELECT * FROM ${cleanTable}`)
    const applied = await approveAndApply(dir, plan.plan_id)
    expect(applied.tables_dropped.map((d) => d.physical)).toEqual(withBranch.filter((t) => !prod.tables.includes(t) && t !== cleanTable))
    expect(applied.tables_refused).toHaveLength(1)
    expect(applied.tables_refused[0]).toMatchObject({ physical: cleanTable })
    expect(applied.tables_refused[0]!.failed_checks.map((c) => c.check)).toEqual(["unreferenced"])
    expect(applied.tables_refused[0]!.failed_checks[0]!.detail).toMatch(/warehouse view analytics\.keep/)
    const after = await catalog(dir)
    expect(after.tables).toContain(cleanTable)
    expect(after.unresolved).toEqual([])

    // An environment that comes to read a planned table between plan and apply: refused, kept.
    const second = await droppedBranch(dir, "feat2", "SELECT id, v || '!' AS v FROM staging.raw")
    const secondTables = second.filter((t) => !after.tables.includes(t))
    const plan2 = await planGc(dir)
    expect(plan2.table_drops.map((d) => d.physical)).toEqual(expect.arrayContaining(secondTables))
    await cli(dir, ["branch", "create", "feat3"])
    writeFileSync(join(dir, "models", "clean.sql"), "SELECT id, v || '!' AS v FROM staging.raw")
    expect((await cli(dir, ["run", "--branch", "feat3"])).code).toBe(0)
    // The working tree is back as planned (a gc plan is stale once a model's file changes).
    writeFileSync(join(dir, "models", "clean.sql"), "SELECT id, upper(v) AS v FROM staging.raw")
    const applied2 = await approveAndApply(dir, plan2.plan_id)
    for (const t of secondTables) expect(applied2.tables_refused.map((r) => r.physical)).toContain(t)
    const final = await catalog(dir)
    for (const t of secondTables) expect(final.tables).toContain(t)
    expect(final.unresolved).toEqual([])
  })

  it("an incremental table (accumulated history) and a table of nondeterministic SQL are never collected", async () => {
    const dir = makeProject({
      "pcli.toml": `[project]\nname = "envgc"\n[adapter.local]\ntype = "embedded"\n`,
      "models/events.sql": "SELECT i AS id, TIMESTAMP '2026-01-01' + to_days(i) AS ts FROM range(1, 4) t(i)",
      "models/events.toml": sidecar("events", "staging") + '[strategy]\ntype = "incremental"\ntimestamp_column = "ts"\n',
      "models/noisy.sql": "SELECT random() AS r",
      "models/noisy.toml": sidecar("noisy", "staging")
    })
    expect((await cli(dir, ["run"])).code).toBe(0)
    const prod = await catalog(dir)
    await cli(dir, ["branch", "create", "feat"])
    writeFileSync(join(dir, "models", "events.sql"), "SELECT i AS id, TIMESTAMP '2026-02-01' + to_days(i) AS ts FROM range(1, 4) t(i)")
    writeFileSync(join(dir, "models", "noisy.sql"), "SELECT random() * 2 AS r")
    expect((await cli(dir, ["run", "--branch", "feat"])).code).toBe(0)
    expect((await cli(dir, ["branch", "drop", "feat"])).code).toBe(0)
    const tables = await inventory(dir)
    const branchTables = tables.filter((t) => !prod.tables.includes(t.physical))
    expect(branchTables).toHaveLength(2)
    for (const t of branchTables) {
      expect(t.derivable).toBe(false)
      expect(unreferenced(t).passed).toBe(true)
      expect(t.checks.filter((c) => !c.passed).map((c) => c.check)).toEqual(["replayable"])
    }
    const replayable = (model: string) => branchTables.find((t) => t.model_name === model)!.checks.find((c) => c.check === "replayable")!.detail
    expect(replayable("events")).toMatch(/incremental table accumulates rows/)
    expect(replayable("noisy")).toMatch(/nondeterministic construct/)
    expect((await json(dir, ["gc", "--derivable", "--min-age-days", "0"])).out).toMatchObject({ review_required: false })
  })

  it("SIGKILL after the DROP, inside both transactions, leaves the table, its registry row and no tombstone", async () => {
    const dir = copyProject(dropped)
    const plan = await planGc(dir)
    expect((await cli(dir, ["review", plan.plan_id, "--approve"])).code).toBe(0)
    const killed = await runCli(["apply", plan.plan_id], { cwd: dir, env: { ...human, PCLI_TEST_CRASH_AFTER: "gc-table-dropped" } })
    // Killed by the signal (no exit code), not an ordinary refusal.
    expect(killed.code).toBe(-1)
    const after = await catalog(dir)
    expect(after.tables).toEqual(withBranch)
    expect(after.unresolved).toEqual([])
    expect(await store(dir, "SELECT count(*) AS n FROM table_tombstones")).toEqual([{ n: 0 }])
    expect(await store(dir, "SELECT count(*) AS n FROM physical_tables")).toEqual([{ n: withBranch.length }])
  })

  it("a deny rule on gc wins over an approval: nothing is dropped", async () => {
    const dir = copyProject(dropped)
    // The rule is in force for everything gc does: its plan, the approval and the apply.
    configure(dir, `[policy]\nversion = 1\ndefault_agent_effect = "allow"\n[[policy.rules]]\nprincipal = "agent"\ncapability = "gc"\neffect = "deny"\nscope = "any"\n`)
    const plan = await planGc(dir)
    expect(plan.table_drops).toHaveLength(2)
    expect((await cli(dir, ["review", plan.plan_id, "--approve"])).code).toBe(0)
    const denied = await json(dir, ["apply", plan.plan_id])
    expect([denied.code, denied.out?.error?.code]).toEqual([1, "policy-denied"])
    expect((await catalog(dir)).tables).toEqual(withBranch)
    expect(await store(dir, "SELECT count(*) AS n FROM table_tombstones")).toEqual([{ n: 0 }])
  })
})
