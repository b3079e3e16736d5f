import { DuckDBInstance } from "@duckdb/node-api"
import { appendFileSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { copyProject, makeProject, runCli } from "../support/cli"
import { environmentProject, sidecar } from "../support/environments"

// Environments through the binary (decision 37), each outcome read from DuckDB's own catalog.

const human = { PCLI_PRINCIPAL: "human", PCLI_PRINCIPAL_ID: "alice" }
const agent = { PCLI_PRINCIPAL: "agent", PCLI_PRINCIPAL_ID: "bot-1" }

const project = (policy = "") => environmentProject("envs", policy)


const cli = (dir: string, args: ReadonlyArray<string>, env: Record<string, string> = human) => runCli(args, { cwd: dir, env })

/** On a run of branch `feat`, its promote plan approved by a human: the catalog before, and the plan. */
const approvePromote = async (dir: string) => {
  const before = await catalog(dir)
  const planId = planIdOf((await cli(dir, ["plan", "--promote", "feat"])).stdout)
  expect((await cli(dir, ["review", planId, "--approve"])).code).toBe(0)
  return { before, planId }
}

/** The shared fixture's spawns run once per file; on a shared 2-core machine that can take minutes. */
const SLOW = 300_000

/** Reads the warehouse's catalog once the binary has exited (it holds no lock then). */
const catalog = async (dir: string) => {
  const instance = await DuckDBInstance.create(join(dir, ".pcli", "warehouse.duckdb"))
  const connection = await instance.connect()
  const rows = async (sql: string) => (await connection.runAndReadAll(sql)).getRows().map((r) => r.map((v) => (typeof v === "bigint" ? Number(v) : v)))
  try {
    return {
      views: Object.fromEntries(
        (await rows("SELECT schema_name || '.' || view_name, sql FROM duckdb_views() WHERE NOT internal ORDER BY 1")).map(([k, v]) => [String(k), String(v)])
      ) as Record<string, string>,
      tables: (await rows("SELECT schema_name || '.' || table_name FROM duckdb_tables() ORDER BY 1")).map((r) => String(r[0])),
      baseTablesAtTargets: (await rows("SELECT table_schema || '.' || table_name FROM information_schema.tables WHERE table_type = 'BASE TABLE' AND table_schema <> 'pcli_physical'")).map((r) => String(r[0])),
      clean: await rows("SELECT * FROM marts.clean ORDER BY id")
    }
  } finally {
    connection.closeSync()
    instance.closeSync()
  }
}

const planIdOf = (stdout: string) => /^Plan ([0-9a-f]{64})/m.exec(stdout)?.[1] ?? ""

const errorCode = (stderr: string) => /error\[([a-z_-]+)\]/.exec(stderr)?.[1]

const ledgerCodes = async (dir: string) => {
  const r = await cli(dir, ["audit", "--output", "json"])
  return r.stdout
}

describe("environments (decision 37)", () => {
  // Built once, copied per test: a production run (its catalog in `prod`), then branch feat created,
  // then feat run with `clean` edited (`branchRan`), then its promote approved (`approved`).
  let produced = ""
  let branched = ""
  let branchRan = ""
  let prod: Awaited<ReturnType<typeof catalog>>
  let approved: { readonly dir: string; readonly before: Awaited<ReturnType<typeof catalog>>; readonly planId: string }
  beforeAll(async () => {
    produced = project()
    expect((await cli(produced, ["run"])).code).toBe(0)
    prod = await catalog(produced)
    branched = copyProject(produced)
    expect((await cli(branched, ["branch", "create", "feat"])).code).toBe(0)
    branchRan = copyProject(branched)
    writeFileSync(join(branchRan, "models", "clean.sql"), "SELECT id, lower(v) AS v FROM staging.raw WHERE id < 5")
    expect((await cli(branchRan, ["run", "--branch", "feat"])).code).toBe(0)
    const dir = copyProject(branchRan)
    approved = { dir, ...(await approvePromote(dir)) }
  }, SLOW)
  const approvedPromote = () => ({ ...approved, dir: copyProject(approved.dir) })

  it("the branch walkthrough: run on prod, branch, run on the branch (prod untouched, unchanged models reused), promote refused unapproved, approve, edit -> stale, approve again, promote is a view swap; rollback restores", async () => {
    expect(prod.baseTablesAtTargets).toEqual([])
    expect(Object.keys(prod.views)).toEqual(["marts.clean", "marts.total", "staging.raw"])

    const dir = copyProject(branched)
    writeFileSync(join(dir, "models", "clean.sql"), "SELECT id, upper(v) || '!' AS v FROM staging.raw WHERE id > 1")
    const branchRun = await cli(dir, ["run", "--branch", "feat", "--output", "json"])
    expect(branchRun.code).toBe(0)
    const statuses = Object.fromEntries(JSON.parse(branchRun.stdout).models.map((m: { model_name: string; status: string }) => [m.model_name, m.status]))
    expect(statuses).toEqual({ raw: "unchanged", clean: "success", total: "success" })

    const afterBranch = await catalog(dir)
    // Production's views and tables are as they were; the branch added two tables and its own views.
    for (const view of Object.keys(prod.views)) expect(afterBranch.views[view]).toBe(prod.views[view])
    expect(afterBranch.clean).toEqual(prod.clean)
    expect(afterBranch.tables.filter((t) => !prod.tables.includes(t))).toHaveLength(2)
    for (const table of prod.tables) expect(afterBranch.tables).toContain(table)
    // The unchanged model is reused: the branch's view reads production's very table.
    expect(afterBranch.views["staging__feat.raw"]).toBe(prod.views["staging.raw"]!.replace("staging.raw", "staging__feat.raw"))

    const diff = JSON.parse((await cli(dir, ["branch", "diff", "feat", "--output", "json"])).stdout)
    const byModel = Object.fromEntries(diff.models.map((m: { model: string }) => [m.model, m]))
    expect(byModel.raw.status).toBe("reused")
    expect(byModel.clean).toMatchObject({ status: "changed", base_rows: 5, branch_rows: 4 })

    const planned = await cli(dir, ["plan", "--promote", "feat"])
    expect(planned.code).toBe(0)
    const planId = planIdOf(planned.stdout)
    const unapproved = await cli(dir, ["apply", planId])
    expect([unapproved.code, errorCode(unapproved.stderr)]).toEqual([1, "marker-missing"])

    expect((await cli(dir, ["review", planId, "--approve"])).code).toBe(0)
    appendFileSync(join(dir, "models", "total.sql"), "\n-- edited after approval\n")
    const stale = await cli(dir, ["apply", planId])
    expect([stale.code, errorCode(stale.stderr)]).toEqual([1, "state-hash-mismatch"])
    expect((await catalog(dir)).views).toEqual(afterBranch.views)

    const again = planIdOf((await cli(dir, ["plan", "--promote", "feat"])).stdout)
    expect((await cli(dir, ["review", again, "--approve"])).code).toBe(0)
    const promoted = await cli(dir, ["apply", again, "--output", "json"])
    expect(promoted.code).toBe(0)
    expect(JSON.parse(promoted.stdout)).toMatchObject({ command: "promote_apply", tables_created: 0 })
    const live = await catalog(dir)
    // A view swap: no table created or dropped, production's views now read the branch's tables.
    expect(live.tables).toEqual(afterBranch.tables)
    expect(live.views["marts.clean"]).toBe(afterBranch.views["marts__feat.clean"]!.replace("marts__feat.clean", "marts.clean"))
    expect(live.views["staging.raw"]).toBe(prod.views["staging.raw"])
    expect(live.clean).toHaveLength(4)

    const rolledBack = await cli(dir, ["rollback"])
    expect(rolledBack.code).toBe(0)
    const restored = await catalog(dir)
    expect(Object.fromEntries(Object.keys(prod.views).map((v) => [v, restored.views[v]]))).toEqual(prod.views)
    expect(restored.clean).toEqual(prod.clean)
    expect(restored.tables).toEqual(afterBranch.tables)
  })

  it("after a promote, and after a rollback, a production run reuses the tables its views now read: nothing rebuilt, no table created", async () => {
    const { dir, planId } = approvedPromote()
    expect((await cli(dir, ["apply", planId])).code).toBe(0)
    const statusesOf = async () => {
      const r = await cli(dir, ["run", "--output", "json"])
      expect(r.code).toBe(0)
      return Object.fromEntries(JSON.parse(r.stdout).models.map((m: { model_name: string; status: string }) => [m.model_name, m.status]))
    }
    const promoted = await catalog(dir)
    expect(await statusesOf()).toEqual({ raw: "unchanged", clean: "unchanged", total: "unchanged" })
    const afterRun = await catalog(dir)
    expect(afterRun.tables).toEqual(promoted.tables)
    expect(afterRun.views).toEqual(promoted.views)
    expect(afterRun.clean).toEqual([[1, "v1"], [2, "v2"], [3, "v3"], [4, "v4"]])

    writeFileSync(join(dir, "models", "clean.sql"), "SELECT id, upper(v) AS v FROM staging.raw")
    expect((await cli(dir, ["rollback"])).code).toBe(0)
    const restored = await catalog(dir)
    expect(await statusesOf()).toEqual({ raw: "unchanged", clean: "unchanged", total: "unchanged" })
    const afterRollbackRun = await catalog(dir)
    expect(afterRollbackRun.tables).toEqual(restored.tables)
    expect(afterRollbackRun.views).toEqual(restored.views)
    expect(afterRollbackRun.clean).toHaveLength(5)
  })

  it("an edit to the config after approval changes the state hash: apply refuses with state-hash-mismatch and swaps nothing", async () => {
    const { dir, before, planId } = approvedPromote()
    appendFileSync(join(dir, "pcli.toml"), "\n# edited after approval\n")
    const stale = await cli(dir, ["apply", planId])
    expect([stale.code, errorCode(stale.stderr)]).toEqual([1, "state-hash-mismatch"])
    expect((await catalog(dir)).views).toEqual(before.views)
  })

  it("SIGKILL in the middle of the swap leaves the old production whole", async () => {
    const { dir, before, planId } = approvedPromote()
    // Killed after the first of the two views was replaced, inside the transaction.
    const killed = await runCli(["apply", planId], { cwd: dir, env: { ...human, PCLI_TEST_CRASH_AFTER: "promote-view-1" } })
    expect(killed.code).not.toBe(0)
    const after = await catalog(dir)
    expect(after.views).toEqual(before.views)
    expect(after.clean).toEqual(before.clean)
  })

  it("an agent's promote needs a human's marker even where policy allows it, and a deny rule on promote wins over a marker", async () => {
    const allow = `[policy]\nversion = 1\ndefault_agent_effect = "allow"\n[[policy.rules]]\nprincipal = "agent"\ncapability = "promote"\neffect = "allow"\nscope = "any"\n`
    // The policy is in force from the promote's plan on: everything the test checks runs under it.
    const dir = copyProject(branchRan)
    appendFileSync(join(dir, "pcli.toml"), allow)
    const before = await catalog(dir)
    const planId = planIdOf((await cli(dir, ["plan", "--promote", "feat"], agent)).stdout)
    const refused = await cli(dir, ["apply", planId], agent)
    expect([refused.code, errorCode(refused.stderr)]).toEqual([1, "marker-missing"])
    expect((await catalog(dir)).views).toEqual(before.views)

    const deny = copyProject(branchRan)
    appendFileSync(join(deny, "pcli.toml"), `[policy]\nversion = 1\ndefault_agent_effect = "allow"\n[[policy.rules]]\nprincipal = "human"\ncapability = "promote"\neffect = "deny"\nscope = "any"\n`)
    const denyBefore = await catalog(deny)
    const denied = planIdOf((await cli(deny, ["plan", "--promote", "feat"])).stdout)
    await cli(deny, ["review", denied, "--approve"])
    const blocked = await cli(deny, ["apply", denied])
    expect([blocked.code, errorCode(blocked.stderr)]).toEqual([1, "policy-denied"])
    expect((await catalog(deny)).views).toEqual(denyBefore.views)
  })

  it("a promote's and a rollback's author and age are the ledger's: an agent's plan files rewritten as a human's, 1000 hours old, mislead neither the queue nor the list; an agent's rollback waits in the queue; an unrecorded plan is named", async () => {
    const policy = `[policy]\nversion = 1\ndefault_agent_effect = "allow"\n`
    const json = async (dir: string, args: ReadonlyArray<string>, env = human) => {
      const r = await cli(dir, [...args, "--output", "json"], env)
      return { code: r.code, stderr: r.stderr, out: r.stdout === "" ? undefined : JSON.parse(r.stdout) }
    }
    const forge = (dir: string, planId: string) => {
      const file = join(dir, ".pcli", "plans", `${planId}.json`)
      const old = new Date(Date.now() - 1000 * 3_600_000).toISOString()
      writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, "utf8")), principal: { class: "human", id: "alice", source: "env" }, created_at: old }, null, 2))
    }
    const differs = (planId: string) => expect.stringContaining(`${planId}: the plan file's author or created_at differ`)
    const bot = { class: "agent", id: "bot-1", source: "env" }

    const dir = copyProject(branchRan)
    // Planned before `[policy]`, so nothing recorded its issuing (the config is in its state hash: another plan).
    const early = (await json(dir, ["plan", "--promote", "feat"], agent)).out.plan_id as string
    appendFileSync(join(dir, "pcli.toml"), policy)
    const planned = await json(dir, ["plan", "--promote", "feat"], agent)
    expect(planned.code, planned.stderr).toBe(0)
    const promoteId = planned.out.plan_id as string
    forge(dir, promoteId)
    forge(dir, early)
    const queue = await json(dir, ["review", "--queue"])
    expect(queue.code, queue.stderr).toBe(0)
    const queued = (id: string) => queue.out.pending.find((i: { plan_id: string }) => i.plan_id === id)
    expect(queued(promoteId)).toMatchObject({ kind: "promote", principal: bot })
    expect(queued(promoteId).staleness_seconds).toBeLessThan(3600)
    expect(queue.out.notes).toContainEqual(differs(promoteId))
    // A plan the ledger never recorded shows the file's claims, and says so.
    const unrecorded = `${early}: the ledger holds no record of its issuing: its author and created_at are the file's claims`
    expect(queued(early)).toMatchObject({ principal: { class: "human", id: "alice" } })
    expect(queue.out.notes).toContainEqual(unrecorded)
    const listed = await json(dir, ["review", "--list"])
    expect(listed.out.plans.find((p: { plan_id: string }) => p.plan_id === promoteId)).toMatchObject({ principal: bot })
    expect(listed.out.notes).toEqual(expect.arrayContaining([differs(promoteId), unrecorded]))

    // A rollback (planned and applied in one command): refused for want of a human's marker, its plan stays, recorded as the agent's.
    const applied = approvedPromote()
    expect((await cli(applied.dir, ["apply", applied.planId])).code).toBe(0)
    appendFileSync(join(applied.dir, "pcli.toml"), policy)
    const rollback = await cli(applied.dir, ["rollback"], agent)
    expect([rollback.code, errorCode(rollback.stderr)]).toEqual([1, "marker-missing"])
    const rollbackId = (await json(applied.dir, ["review", "--list"])).out.plans.find((p: { kind: string }) => p.kind === "rollback").plan_id as string
    // It waits for a human: in the queue, as the agent's, whatever its file now claims.
    forge(applied.dir, rollbackId)
    const waiting = await json(applied.dir, ["review", "--queue"])
    expect(waiting.out.pending.find((i: { plan_id: string }) => i.plan_id === rollbackId)).toMatchObject({ kind: "rollback", principal: bot })
    expect(waiting.out.notes).toContainEqual(differs(rollbackId))
    const after = await json(applied.dir, ["review", "--list"])
    expect(after.out.plans.find((p: { plan_id: string }) => p.plan_id === rollbackId)).toMatchObject({ kind: "rollback", principal: bot })
    expect(after.out.notes).toContainEqual(differs(rollbackId))
  })

  it("a human's rollback that policy sends to review waits in the review queue (its kind stays rollback)", async () => {
    const applied = approvedPromote()
    expect((await cli(applied.dir, ["apply", applied.planId])).code).toBe(0)
    appendFileSync(join(applied.dir, "pcli.toml"), `[policy]\nversion = 1\n[[policy.rules]]\nprincipal = "human"\ncapability = "promote"\neffect = "require_review"\nscope = "any"\n`)
    const rollback = await cli(applied.dir, ["rollback"])
    expect([rollback.code, errorCode(rollback.stderr)]).toEqual([1, "marker-missing"])
    const queue = JSON.parse((await cli(applied.dir, ["review", "--queue", "--output", "json"])).stdout)
    expect(queue.pending).toMatchObject([{ kind: "rollback", principal: { class: "human", id: "alice" }, marker: "missing" }])
  })

  it("bad input: one line, a code, exit 1, nothing changed", async () => {
    const dir = copyProject(produced)
    const before = await catalog(dir)
    const cases: ReadonlyArray<[ReadonlyArray<string>, string]> = [
      [["run", "--branch", "nope"], "unknown-branch"],
      [["branch", "create", "Not-An-Identifier"], "invalid-branch-name"],
      [["branch", "drop", "prod"], "production-not-droppable"],
      [["rollback"], "no-previous-promote"]
    ]
    for (const [args, code] of cases) {
      const r = await cli(dir, args)
      expect([r.code, errorCode(r.stderr), r.stderr.trim().split("\n").length]).toEqual([1, code, 1])
    }
    await cli(dir, ["branch", "create", "idle"])
    const neverRun = await cli(dir, ["plan", "--promote", "idle"])
    expect([neverRun.code, errorCode(neverRun.stderr)]).toEqual([1, "branch-never-run"])

    // A promote plan whose branch ran again since planning.
    await cli(dir, ["branch", "create", "feat"])
    writeFileSync(join(dir, "models", "clean.sql"), "SELECT id, v || '?' AS v FROM staging.raw")
    await cli(dir, ["run", "--branch", "feat"])
    const planId = planIdOf((await cli(dir, ["plan", "--promote", "feat"])).stdout)
    await cli(dir, ["review", planId, "--approve"])
    await cli(dir, ["run", "--branch", "feat"])
    const moved = await cli(dir, ["apply", planId])
    expect([moved.code, errorCode(moved.stderr)]).toEqual([1, "branch-moved"])
    const after = await catalog(dir)
    for (const view of Object.keys(before.views)) expect(after.views[view]).toBe(before.views[view])
    // Policy was consulted for the refused apply and the rollback: each left its row.
    const audit = await ledgerCodes(dir)
    expect(audit).toContain("branch-moved")
    expect(audit).toContain("no-previous-promote")
  })

  it("a warehouse whose targets are plain tables (pcli before environments) moves to the physical schema on its first run, no row lost", async () => {
    const dir = makeProject({
      "pcli.toml": `[project]\nname = "legacy"\n[adapter.local]\ntype = "embedded"\n`,
      "models/events.sql": "SELECT 3 AS id, TIMESTAMP '2024-03-01' AS ts",
      "models/events.toml": sidecar("events", "staging", `[strategy]\ntype = "incremental"\ntimestamp_column = "ts"\n`)
    })
    const { mkdirSync } = await import("node:fs")
    mkdirSync(join(dir, ".pcli"))
    const instance = await DuckDBInstance.create(join(dir, ".pcli", "warehouse.duckdb"))
    const connection = await instance.connect()
    // What an earlier pcli's incremental runs left: rows the SQL no longer yields.
    await connection.run("CREATE SCHEMA staging; CREATE TABLE staging.events AS SELECT * FROM (VALUES (1, TIMESTAMP '2024-01-01'), (2, TIMESTAMP '2024-02-01')) t(id, ts)")
    connection.closeSync()
    instance.closeSync()
    expect((await cli(dir, ["run"])).code).toBe(0)
    const moved = await DuckDBInstance.create(join(dir, ".pcli", "warehouse.duckdb"))
    const c = await moved.connect()
    const ids = (await c.runAndReadAll("SELECT id FROM staging.events ORDER BY id")).getRows().map((r) => r[0])
    const kinds = (await c.runAndReadAll("SELECT table_schema, table_type FROM information_schema.tables ORDER BY 1")).getRows()
    c.closeSync()
    moved.closeSync()
    expect(ids).toEqual([1, 2, 3])
    expect(kinds).toEqual([["pcli_physical", "BASE TABLE"], ["staging", "VIEW"]])
  })
})
