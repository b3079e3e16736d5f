import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { makeProject, runCli } from "../support/cli"

const sidecar = (name: string, extra = "") => `name = "${name}"\n[target]\ncatalog = "w"\nschema = "s"\ntable = "${name}"\n${extra}`

// a → b → c, and d on its own; e is time_interval reading a.
const project = () =>
  makeProject({
    "pcli.toml": `[adapter.local]\ntype = "embedded"\n`,
    "models/a.sql": "SELECT 1 AS id",
    "models/a.toml": sidecar("a"),
    "models/b.sql": "SELECT id + 1 AS id FROM s.a",
    "models/b.toml": sidecar("b"),
    "models/c.sql": "SELECT id * 10 AS id FROM s.b",
    "models/c.toml": sidecar("c"),
    "models/d.sql": "SELECT 4 AS id",
    "models/d.toml": sidecar("d"),
    "models/e.sql": "SELECT TIMESTAMP '2026-01-01 05:00:00' AS ts, id FROM s.a WHERE TIMESTAMP '2026-01-01 05:00:00' >= @start_date AND TIMESTAMP '2026-01-01 05:00:00' < @end_date",
    "models/e.toml": sidecar("e", `[strategy]\ntype = "time_interval"\ntime_column = "ts"\ngranularity = "day"\n`)
  })

const human = { PCLI_PRINCIPAL: "human", PCLI_PRINCIPAL_ID: "alice" }
const json = async (args: ReadonlyArray<string>, cwd: string, env: Record<string, string> = human) => {
  const r = await runCli([...args, "--output", "json"], { cwd, env })
  return { ...r, out: r.stdout === "" ? undefined : JSON.parse(r.stdout) }
}

describe("pcli backfill through the binary", () => {
  it("flag conflicts are usage errors (exit 2); no seeds is backfill-nothing; unknown models are listed", async () => {
    const cwd = project()
    const conflict = await runCli(["backfill", "--model", "a", "--from-last-run"], { cwd })
    expect(conflict.code).toBe(2)
    expect(conflict.stderr).toMatch(/^error\[usage\]: --from-last-run conflicts with --model/)
    const half = await runCli(["backfill", "--model", "e", "--from", "2026-01-01"], { cwd })
    expect(half.code).toBe(2)
    expect(half.stderr).toMatch(/--from requires --to/)
    const halfTo = await runCli(["backfill", "--model", "e", "--to", "2026-01-01"], { cwd })
    expect(halfTo.code).toBe(2)
    const nothing = await json(["backfill"], cwd)
    expect(nothing.code).toBe(1)
    expect(nothing.out.error.code).toBe("backfill-nothing")
    const unknown = await json(["backfill", "--model", "zz"], cwd)
    expect(unknown.code).toBe(1)
    expect(unknown.out.error.code).toBe("model-not-found")
    const noRun = await json(["backfill", "--from-last-run"], cwd)
    expect(noRun.code).toBe(1)
    expect(noRun.out.error.code).toBe("backfill-no-failed-models")
  })

  it("plans the downstream closure in layers with cost from history; --no-downstream stops at the seeds; apply is review-gated and runs only the plan", async () => {
    const cwd = project()
    const run = await json(["run"], cwd)
    expect(run.code, run.stderr).toBe(0)

    const plan = await json(["backfill", "--model", "a"], cwd)
    expect(plan.code, plan.stderr).toBe(0)
    expect(plan.out).toMatchObject({
      command: "backfill",
      trigger: "manual",
      requires_review: true,
      seed_models: ["a"],
      models: ["a", "b", "e", "c"],
      execution_layers: [["a"], ["b", "e"], ["c"]]
    })
    expect(plan.out.cost_estimate.basis).toBe("historical_observed")
    expect(plan.out.cost_estimate.per_model.map((p: { source_run_id?: string }) => p.source_run_id)).toEqual(Array(4).fill(run.out.run_id))

    const seedsOnly = await json(["backfill", "--model", "b", "--model", "a", "--no-downstream"], cwd)
    expect(seedsOnly.out.models).toEqual(["a", "b"])
    expect(seedsOnly.out.execution_layers).toEqual([["a"], ["b"]])
    const windowed = await json(["backfill", "--model", "a", "--from", "2026-01-01", "--to", "2026-01-02"], cwd)
    expect(windowed.out.partition_scope).toEqual({ from: "2026-01-01", to: "2026-01-02", models: ["e"] })

    // Always review-gated, even for a human with no [policy] block.
    const unreviewed = await json(["apply", plan.out.plan_id], cwd)
    expect(unreviewed.code).toBe(1)
    expect(unreviewed.out.error.code).toBe("marker-missing")
    expect((await json(["review", plan.out.plan_id, "--approve"], cwd)).code).toBe(0)
    const applied = await json(["apply", plan.out.plan_id], cwd)
    expect(applied.code, applied.stderr).toBe(0)
    expect(applied.out.kind).toBe("backfill")
    expect(applied.out.principal).toBe("agent")
    expect(applied.out.run.models.map((m: { model_name: string }) => m.model_name)).toEqual(["a", "b", "e", "c"])

    const windowApplied = await json(["review", windowed.out.plan_id, "--approve"], cwd)
    expect(windowApplied.code).toBe(0)
    const w = await json(["apply", windowed.out.plan_id], cwd)
    expect(w.code, w.stderr).toBe(0)
    expect(w.out.run).toMatchObject({ partition_from: "2026-01-01", partition_to: "2026-01-02" })

    // The same backfill again (an upstream fix): a plan applies once, so it is issued afresh, naming the applied one.
    const again = await json(["backfill", "--model", "a"], cwd)
    expect(again.out.plan_id).not.toBe(plan.out.plan_id)
    expect(JSON.parse(readFileSync(again.out.path, "utf8")).payload.reissue_of).toBe(plan.out.plan_id)
    expect((await json(["review", again.out.plan_id, "--approve"], cwd)).code).toBe(0)
    const reapplied = await json(["apply", again.out.plan_id], cwd)
    expect(reapplied.code, reapplied.stderr).toBe(0)
    expect((await json(["apply", plan.out.plan_id], cwd)).out.error.code).toBe("plan-already-applied")
  })

  it("--from-last-run seeds from the failed models; a model edited after planning makes the plan stale", async () => {
    const cwd = project()
    writeFileSync(join(cwd, "models/b.sql"), "SELECT error('boom') AS id FROM s.a")
    const failed = await json(["run"], cwd)
    expect(failed.code).not.toBe(0)
    writeFileSync(join(cwd, "models/b.sql"), "SELECT id + 1 AS id FROM s.a")
    const plan = await json(["backfill", "--from-last-run"], cwd)
    expect(plan.code, plan.stderr).toBe(0)
    expect(plan.out).toMatchObject({ trigger: "last_run_failure", seed_models: ["b"], models: ["b", "c"] })
    await json(["review", plan.out.plan_id, "--approve"], cwd)
    writeFileSync(join(cwd, "models/c.sql"), "SELECT id * 100 AS id FROM s.b")
    const stale = await json(["apply", plan.out.plan_id], cwd)
    expect(stale.code).toBe(1)
    expect(stale.out.error.code).toBe("plan-stale")
  })
})
