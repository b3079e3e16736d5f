import { execFileSync } from "node:child_process"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { makeProject, runCli } from "../support/cli"

const POLICY = `[policy]
version = 1
default_agent_effect = "require_review"

[[policy.rules]]
principal = "agent"
capability = "schema_change.additive"
effect = "allow"
scope = { layer = "bronze" }
verify_after = ["row_count"]
`

const sidecar = (name: string, layer: string) =>
  `name = "${name}"\n[target]\ncatalog = "w"\nschema = "${layer}"\ntable = "${name}"\n[tags]\nlayer = "${layer}"\n`

/** raw_events → silver_events → gold_daily, committed to git as the plan base. */
const project = () => {
  const cwd = makeProject({
    "pcli.toml": `[adapter.local]\ntype = "embedded"\n\n${POLICY}`,
    ".gitignore": ".pcli/\nmodels/.pcli-state.sqlite*\n",
    "models/raw_events.sql": "SELECT 1 AS event_id",
    "models/raw_events.toml": sidecar("raw_events", "bronze"),
    "models/silver_events.sql": "SELECT event_id FROM bronze.raw_events",
    "models/silver_events.toml": sidecar("silver_events", "silver"),
    "models/gold_daily.sql": "SELECT count(*) AS n FROM silver.silver_events",
    "models/gold_daily.toml": sidecar("gold_daily", "gold")
  })
  const git = (...args: Array<string>) => execFileSync("git", args, { cwd, stdio: ["ignore", "pipe", "pipe"] })
  git("init", "-q")
  git("-c", "user.email=t@example.com", "-c", "user.name=t", "add", ".")
  git("-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "base")
  return cwd
}

const agent = { PCLI_PRINCIPAL: "agent", PCLI_PRINCIPAL_ID: "bot-1" }
const human = { PCLI_PRINCIPAL: "human", PCLI_PRINCIPAL_ID: "alice" }
const json = async (args: ReadonlyArray<string>, cwd: string, env: Record<string, string> = human) => {
  const r = await runCli([...args, "--output", "json"], { cwd, env })
  expect(r.code, r.stderr).toBe(0)
  return JSON.parse(r.stdout)
}

describe("pcli audit --for (custody chain) through plan → approval → apply → verification", () => {
  it("a plan, its run and its model each give the chain; the run is linked to the plan", async () => {
    const cwd = project()
    // The agent adds a column to the bronze model (allowed, verify_after) and a new gold model (escalates).
    writeFileSync(join(cwd, "models/raw_events.sql"), "SELECT 1 AS event_id, 2 AS source_id")
    writeFileSync(join(cwd, "models/gold_new.sql"), "SELECT 1 AS x")
    writeFileSync(join(cwd, "models/gold_new.toml"), sidecar("gold_new", "gold"))
    const plan = await json(["plan", "--base", "HEAD"], cwd, agent)
    expect(plan.kind).toBe("escalation")
    const planId: string = plan.plan_id
    await json(["review", planId, "--approve"], cwd, human)
    const applied = await json(["apply", planId], cwd, agent)
    expect(applied.run.status).toBe("success")
    const runId: string = applied.run.run_id

    const byPlan = await json(["audit", "--for", planId], cwd)
    expect(byPlan).toMatchObject({ command: "audit_custody", subject: planId, subject_kind: "plan", resolved: true })
    expect(byPlan.plan).toMatchObject({
      availability: "available",
      plan_id: planId,
      kind: "escalation",
      proposer: "agent(bot-1)",
      approval: { approver: "human(alice)" }
    })
    expect(byPlan.plan.changes).toEqual(
      expect.arrayContaining([
        { model: "raw_events", change_class: "schema_change.additive" },
        { model: "gold_new", change_class: "schema_change.additive" }
      ])
    )
    const kinds = byPlan.decisions.entries.map((r: { kind: string }) => r.kind)
    expect(kinds).toContain("approval")
    expect(kinds).toContain("evaluation")
    expect(kinds).not.toContain("verification")
    // Newest first.
    const stamps = byPlan.decisions.entries.map((r: { timestamp: string }) => r.timestamp)
    expect([...stamps].sort().reverse()).toEqual(stamps)
    expect(byPlan.runs).toMatchObject({ availability: "available", total: 1, runs: [{ run_id: runId, plan_id: planId, status: "success" }] })
    expect(byPlan.verify_after).toMatchObject({ availability: "available", total: 1, entries: [{ plan_id: planId, passed: true, rule_id: 0 }] })
    // Blast radius from the compiled DAG: what the changed models feed, themselves excluded.
    expect(byPlan.blast_radius).toMatchObject({ availability: "available", direct: ["silver_events"], transitive: ["gold_daily", "silver_events"], total: 2 })

    const byRun = await json(["audit", "--for", runId], cwd)
    expect(byRun).toMatchObject({ subject_kind: "run", resolved: true, plan: { plan_id: planId, proposer: "agent(bot-1)" }, runs: { total: 1 } })
    expect(byRun.verify_after.total).toBe(1)
    expect(byRun.decisions.total).toBe(byPlan.decisions.total)

    const byModel = await json(["audit", "--for", "raw_events"], cwd)
    expect(byModel).toMatchObject({ subject_kind: "model", resolved: true, plan: { plan_id: planId } })
    expect(byModel.decisions.entries.every((r: { model: string }) => r.model === "raw_events")).toBe(true)
    expect(byModel.runs.runs.map((r: { run_id: string }) => r.run_id)).toEqual([runId])
    expect(byModel.blast_radius).toMatchObject({ models: ["raw_events"], direct: ["silver_events"], total: 2 })

    const text = await runCli(["audit", "--for", planId], { cwd, env: human })
    expect(text.code).toBe(0)
    expect(text.stdout).toContain(`custody of plan ${planId}`)
    expect(text.stdout).toContain("approved by human(alice)")
    expect(text.stdout).toContain(`run ${runId}`)
    expect(text.stdout).toMatch(/verify_after: 1\n {2}passed/)
  })

  it("an unknown subject is an unresolved model with an empty chain, exit 0; --for conflicts are usage errors", async () => {
    const cwd = project()
    const out = await json(["audit", "--for", "nope"], cwd)
    expect(out).toMatchObject({
      subject_kind: "model",
      resolved: false,
      decisions: { availability: "no_data", total: 0 },
      plan: { availability: "unavailable" },
      runs: { availability: "no_data" },
      blast_radius: { availability: "no_data" }
    })
    for (const extra of [["--scorecard"], ["--actor", "bot-1"], ["--since", "7d"], ["--product", "p"], ["--verify"], ["--by", "rule"], ["--window", "7d"]]) {
      const r = await runCli(["audit", "--for", "x", ...extra], { cwd })
      expect(r.code, extra.join(" ")).toBe(2)
    }
  })
})
