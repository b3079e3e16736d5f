import { SqlClient } from "@effect/sql"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { Effect } from "effect"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { copyProject, makeProject, runCli } from "../support/cli"

const ca = (name: string) =>
  `name = "${name}"\n[target]\ncatalog = "w"\nschema = "s"\ntable = "${name}"\n[strategy]\ntype = "content_addressed"\nstorage_prefix = "artifacts"\n`

const project = (extraConfig = "") =>
  makeProject({
    "pcli.toml": `[adapter.local]\ntype = "embedded"\n${extraConfig}`,
    "models/stable.sql": "SELECT 1 AS id, 'x' AS v",
    "models/stable.toml": ca("stable"),
    "models/noisy.sql": "SELECT random() AS r",
    "models/noisy.toml": ca("noisy")
  })

const human = { PCLI_PRINCIPAL: "human", PCLI_PRINCIPAL_ID: "alice" }
const json = async (args: ReadonlyArray<string>, cwd: string) => {
  const r = await runCli([...args, "--output", "json"], { cwd, env: human })
  return { ...r, out: r.stdout === "" ? undefined : JSON.parse(r.stdout) }
}
const query = (cwd: string, text: string) =>
  Effect.runPromise(
    Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe<Record<string, unknown>>(text)).pipe(
      Effect.provide(SqliteClient.layer({ filename: join(cwd, "models", ".pcli-state.sqlite") }))
    )
  )

describe("pcli gc --derivable through the binary", () => {
  // Built once, copied per test: a project run (`ran`), then its gc plan written (`planned`, with the plan's output).
  let ran = ""
  let planned = ""
  let plan: Awaited<ReturnType<typeof json>>
  beforeAll(async () => {
    ran = project()
    expect((await json(["run"], ran)).code).toBe(0)
    planned = copyProject(ran)
    plan = await json(["gc", "--derivable", "--min-age-days", "0"], planned)
  }, 300_000)

  it("dry run: six checks in order, volatile SQL never derivable, default age keeps fresh artifacts; physical_delete is a hard error", async () => {
    const cwd = copyProject(ran)
    const inv = await json(["gc", "--derivable", "--dry-run", "--min-age-days", "0"], cwd)
    expect(inv.code, inv.stderr).toBe(0)
    expect(inv.out).toMatchObject({ command: "gc --derivable --dry-run", artifact_count: 2, derivable_count: 1, read_tracking_available: false })
    const byModel = new Map(inv.out.candidates.map((c: { model_name: string }) => [c.model_name, c]))
    const stable = byModel.get("stable") as { derivable: boolean; checks: Array<{ check: string; passed: boolean; detail: string }>; size_bytes: number }
    const noisy = byModel.get("noisy") as typeof stable
    expect(stable.checks.map((c) => c.check)).toEqual(["recipe_recorded", "recipe_produces_output", "replayable", "unreferenced", "policy_allows", "age_threshold"])
    expect(stable.derivable).toBe(true)
    expect(inv.out.derivable_bytes).toBe(stable.size_bytes)
    expect(noisy.derivable).toBe(false)
    expect(noisy.checks.find((c) => c.check === "replayable")).toMatchObject({ passed: false })
    expect(noisy.checks.find((c) => c.check === "replayable")!.detail).toMatch(/random/)

    const aged = await json(["gc", "--derivable", "--dry-run"], cwd)
    expect(aged.out.derivable_count).toBe(0)
    expect(aged.out.candidates[0].checks[5]).toMatchObject({ check: "age_threshold", passed: false })
    const none = await json(["gc", "--derivable"], cwd)
    expect(none.code).toBe(0)
    expect(none.out).toMatchObject({ eviction_count: 0, message: "nothing is provably derivable — no plan written" })

    expect((await runCli(["gc", "--dry-run"], { cwd })).code).toBe(2)
    writeFileSync(join(cwd, "pcli.toml"), `[adapter.local]\ntype = "embedded"\n[gc]\nphysical_delete = true\n`)
    const hard = await json(["gc", "--derivable", "--dry-run"], cwd)
    expect(hard.code).toBe(1)
    expect(hard.out.error.code).toBe("gc-physical-delete-unsupported")
  })

  it("a new reference between plan and apply is refused with unreferenced reported; nothing is retired", async () => {
    const cwd = copyProject(planned)
    expect(plan.code, plan.stderr).toBe(0)
    expect(plan.out).toMatchObject({ eviction_count: 1, review_required: true, evictions: [{ model_name: "stable" }] })
    const unreviewed = await json(["apply", plan.out.plan_id], cwd)
    expect(unreviewed.out.error.code).toBe("marker-missing")
    expect((await json(["review", plan.out.plan_id, "--approve"], cwd)).code).toBe(0)
    // Same SQL, same bytes: a forced rebuild (an unchanged model is not rebuilt) adds a second ledger row for the planned hash.
    expect((await json(["run", "--full-refresh"], cwd)).code).toBe(0)
    const applied = await json(["apply", plan.out.plan_id], cwd)
    expect(applied.code, applied.stderr).toBe(0)
    expect(applied.out).toMatchObject({ kind: "gc", evicted_count: 0, refused_count: 1 })
    expect(applied.out.refused[0].failed_checks).toMatchObject([{ check: "unreferenced", passed: false, detail: "shared bytes: 2 ledger references" }])
    expect(await query(cwd, "SELECT * FROM tombstones")).toEqual([])
  })

  it("apply evicts in one transaction (tombstone written, ledger row retired, bytes kept); a plan applies once", async () => {
    const cwd = copyProject(planned)
    const hash = plan.out.evictions[0].blake3_hash as string
    const file = join(cwd, "artifacts", `${hash}.parquet`)
    const before = readFileSync(file)
    await json(["review", plan.out.plan_id, "--approve"], cwd)
    const applied = await json(["apply", plan.out.plan_id], cwd)
    expect(applied.code, applied.stderr).toBe(0)
    expect(applied.out).toMatchObject({ evicted_count: 1, refused_count: 0, evicted: [{ blake3_hash: hash, tombstone_recorded: true, physical_reclaimed: false }] })
    expect(await query(cwd, `SELECT count(*) AS n FROM artifacts WHERE blake3_hash = '${hash}'`)).toEqual([{ n: 0 }])
    expect(await query(cwd, "SELECT blake3_hash, model_name, plan_id, physical_reclaimed, restored_at FROM tombstones")).toEqual([
      { blake3_hash: hash, model_name: "stable", plan_id: plan.out.plan_id, physical_reclaimed: 0, restored_at: null }
    ])
    expect(existsSync(file) && readFileSync(file).equals(before)).toBe(true)
    // decisions.md 34: the approval was used up; a re-apply, even re-approved, changes nothing.
    const again = await json(["apply", plan.out.plan_id], cwd)
    expect([again.code, again.out.error.code]).toEqual([1, "plan-already-applied"])
    await json(["review", plan.out.plan_id, "--approve"], cwd)
    expect((await json(["apply", plan.out.plan_id], cwd)).out.error.code).toBe("plan-already-applied")
    expect(await query(cwd, "SELECT count(*) AS n FROM tombstones")).toEqual([{ n: 1 }])
  })
})
