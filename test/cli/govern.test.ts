import { DuckDBInstance } from "@duckdb/node-api"
import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { makeProject, runCli } from "../support/cli"
import { readLedgerRows } from "../support/stateStore"

const POLICY = `[policy]
version = 1
default_agent_effect = "require_review"

[[policy.rules]]
principal = "agent"
capability = "apply"
effect = "deny"
scope = { contracted = true }

[[policy.rules]]
principal = "agent"
capability = "schema_change.additive"
effect = "allow"
scope = { layer = "bronze" }
`

const CONTRACT = `[[columns]]\nname = "id"\ntype = "INTEGER"\nnullable = false\n\n[[columns]]\nname = "email"\ntype = "VARCHAR"\nnullable = true\n`
const sidecar = (name: string, layer: string, extra = "") =>
  `name = "${name}"\n[target]\ncatalog = "w"\nschema = "${layer}"\ntable = "${name}"\n[tags]\nlayer = "${layer}"\n${extra}`

const gitProject = () => {
  const cwd = makeProject({
    "pcli.toml": `[adapter.local]\ntype = "embedded"\n\n${POLICY}`,
    ".gitignore": ".pcli/\nmodels/.pcli-state.sqlite*\n",
    "models/gold_customers.sql": "SELECT 1 AS id, 'a@example.com' AS email",
    "models/gold_customers.toml": sidecar("gold_customers", "gold", `[classification]\nemail = "pii"\n`),
    "models/gold_customers.contract.toml": CONTRACT
  })
  const git = (...args: Array<string>) => execFileSync("git", args, { cwd, stdio: ["ignore", "pipe", "pipe"] })
  git("init", "-q")
  git("-c", "user.email=t@example.com", "-c", "user.name=t", "add", ".")
  git("-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "base")
  return cwd
}

const agent = { PCLI_PRINCIPAL: "agent", PCLI_PRINCIPAL_ID: "bot-1" }
const human = { PCLI_PRINCIPAL: "human", PCLI_PRINCIPAL_ID: "alice" }
const json = async (args: ReadonlyArray<string>, cwd: string, env: Record<string, string>) => {
  const r = await runCli([...args, "--output", "json"], { cwd, env })
  return { ...r, out: JSON.parse(r.stdout) }
}
/** The tables in the project's embedded warehouse (none when it was never created). */
const tables = async (cwd: string): Promise<ReadonlyArray<string>> => {
  const file = join(cwd, ".pcli/warehouse.duckdb")
  if (!existsSync(file)) return []
  const instance = await DuckDBInstance.create(file, { access_mode: "READ_ONLY" })
  const connection = await instance.connect()
  try {
    // pcli.governance is pcli's own record of the warehouse's governor (decisions 35), not a model's table.
    const reader = await connection.runAndReadAll("SELECT table_schema || '.' || table_name FROM information_schema.tables WHERE table_schema NOT IN ('pcli', 'pcli_physical') ORDER BY 1")
    return reader.getRows().map((r) => String(r[0]))
  } finally {
    connection.closeSync()
    instance.closeSync()
  }
}
const ledger = (cwd: string) => Effect.runPromise(readLedgerRows(join(cwd, "models", ".pcli-state.sqlite")))

describe("plan → review → apply through the binary", () => {
  it("an agent dropping a pii column is denied naming the rule; a human applies the same plan; an agent's bronze model flows", async () => {
    const cwd = gitProject()
    // The agent drops the pii column from the SQL and the contract.
    writeFileSync(join(cwd, "models/gold_customers.sql"), "SELECT 1 AS id")
    writeFileSync(join(cwd, "models/gold_customers.contract.toml"), CONTRACT.split("\n\n")[0]!)
    const plan = await json(["plan", "--base", "HEAD"], cwd, agent)
    expect(plan.code, plan.stderr).toBe(0)
    expect(plan.out.changes[0]).toMatchObject({ model: "gold_customers", change_class: "schema_change.breaking" })
    expect(plan.out.evaluations).toMatchObject([{ model: "gold_customers", effect: "deny", rule_id: 0 }])

    const denied = await json(["apply", plan.out.plan_id], cwd, agent)
    expect(denied.code).toBe(1)
    expect(denied.out.error.code).toBe("policy-denied")
    expect(denied.stderr).toMatch(/^error\[policy-denied\]: .*rule 0/)
    expect(await tables(cwd)).toEqual([]) // nothing materialized
    expect(existsSync(join(cwd, ".pcli/warehouse.duckdb"))).toBe(false) // the warehouse opens only after the gates

    const applied = await json(["apply", plan.out.plan_id], cwd, human)
    expect(applied.code, applied.stderr).toBe(0)
    expect(applied.out.run.status).toBe("success")
    expect(await tables(cwd)).toEqual(["gold.gold_customers"])

    // An agent's new bronze model under the additive allow rule applies without review.
    writeFileSync(join(cwd, "models/raw_events.sql"), "SELECT 1 AS event_id")
    writeFileSync(join(cwd, "models/raw_events.toml"), sidecar("raw_events", "bronze"))
    const bronze = await json(["plan", "--model", "raw_events"], cwd, agent)
    expect(bronze.code, bronze.stderr).toBe(0)
    expect(bronze.out.evaluations).toMatchObject([{ model: "raw_events", capability: "schema_change.additive", effect: "allow", rule_id: 1 }])
    const flowed = await json(["apply", bronze.out.plan_id], cwd, agent)
    expect(flowed.code, flowed.stderr).toBe(0)

    const rows = (await ledger(cwd)).filter((r) => r.kind === "evaluation")
    const decisions = rows.map((r) => [r.principal, r.principal_id, r.model, r.effect])
    expect(decisions).toContainEqual(["agent", "bot-1", "gold_customers", "deny"])
    expect(decisions).toContainEqual(["agent", "bot-1", "raw_events", "allow"])
    for (const r of await ledger(cwd)) expect(r.principal_id_verified).toBe(0)
    expect(rows.find((r) => r.effect === "deny" && String(r.reason).includes("policy-denied"))).toBeDefined()
  })

  it("review: --status conflicts with --approve and --queue (exit 2); an unknown plan id is plan-not-found with a ledger row", async () => {
    const cwd = gitProject()
    for (const args of [["review", "abc", "--status", "--approve"], ["review", "--queue", "--status"]]) {
      const r = await runCli(args, { cwd })
      expect(r.code).toBe(2)
      expect(r.stderr).toMatch(/^error\[usage\]: --status conflicts with/)
    }
    const missing = await json(["apply", "0".repeat(64)], cwd, human)
    expect(missing.code).toBe(1)
    expect(missing.out.error.code).toBe("plan-not-found")
    expect((await ledger(cwd)).some((r) => String(r.reason).includes("plan-not-found"))).toBe(true)
  })

  it("marker refusals have their own codes (truncated, another plan's, a directory); an edited plan is plan-integrity", async () => {
    const cwd = gitProject()
    writeFileSync(join(cwd, "models/gold_customers.sql"), "SELECT 2 AS id, 'a@example.com' AS email")
    const a = await json(["plan", "--base", "HEAD"], cwd, agent)
    expect(a.out.kind).toBe("run")
    const planFile = join(cwd, ".pcli/plans", `${a.out.plan_id}.json`)
    const marker = join(cwd, ".pcli/plans", `${a.out.plan_id}.reviewed.json`)
    const approved = await json(["review", a.out.plan_id, "--approve"], cwd, human)
    expect(approved.code, approved.stderr).toBe(0)
    const good = readFileSync(marker, "utf8")
    writeFileSync(marker, good.slice(0, 20))
    expect((await json(["review", a.out.plan_id, "--status"], cwd, human)).out.error.code).toBe("marker-unparseable")
    writeFileSync(marker, good.replace(a.out.plan_id, "f".repeat(64)))
    expect((await json(["review", a.out.plan_id, "--status"], cwd, human)).out.error.code).toBe("marker-plan-mismatch")
    rmSync(marker)
    mkdirSync(marker)
    expect((await json(["review", a.out.plan_id, "--status"], cwd, human)).out.error.code).toBe("marker-not-a-file")
    writeFileSync(planFile, readFileSync(planFile, "utf8").replace('"gold_customers"', '"gold_customerz"'))
    expect((await json(["apply", a.out.plan_id], cwd, human)).out.error.code).toBe("plan-integrity")
  })
})

describe("an agent's pcli run goes through the gate (decisions item 30)", () => {
  it("under a deny rule or a freeze it is refused before any work, one ledger row per model; a human run is not gated", async () => {
    const cwd = gitProject()
    const built = await json(["run"], cwd, human)
    expect(built.code, built.stderr).toBe(0)
    const before = await tables(cwd)

    const denied = await json(["run"], cwd, agent)
    expect(denied.code).toBe(1)
    expect(denied.out.error.code).toBe("run-needs-plan")
    expect(denied.stderr).toMatch(/^error\[run-needs-plan\]: .*gold_customers \(deny, rule 0\).*pcli plan/)
    const refused = (await ledger(cwd)).filter((r) => String(r.reason).startsWith("refused [run-needs-plan]"))
    expect(refused).toHaveLength(1)
    expect(refused[0]).toMatchObject({ principal: "agent", principal_id: "bot-1", capability: "apply", model: "gold_customers", effect: "deny", rule_id: 0 })

    // A bronze model the rules allow runs; a freeze on it refuses the agent until a human lifts it.
    writeFileSync(join(cwd, "models/raw_events.sql"), "SELECT 1 AS event_id")
    writeFileSync(join(cwd, "models/raw_events.toml"), sidecar("raw_events", "bronze"))
    writeFileSync(join(cwd, "pcli.toml"), readFileSync(join(cwd, "pcli.toml"), "utf8") + `\n[[policy.rules]]\nprincipal = "agent"\ncapability = "apply"\neffect = "allow"\nscope = { layer = "bronze" }\n`)
    // The edited [policy] governs the warehouse once a human's build re-pins it (decisions 35).
    expect((await json(["run", "--model", "gold_customers", "--full-refresh"], cwd, human)).code).toBe(0)
    expect((await json(["run", "--model", "raw_events"], cwd, agent)).code).toBe(0)
    expect((await json(["policy", "freeze", "--principal", "agent", "--scope", "layer=bronze"], cwd, agent)).code).toBe(0)
    const frozen = await json(["run", "--model", "raw_events"], cwd, agent)
    expect(frozen.out.error.code).toBe("run-needs-plan")
    const agentUnfreeze = await json(["policy", "unfreeze", "--principal", "agent", "--scope", "layer=bronze"], cwd, agent)
    expect(agentUnfreeze.out.error.code).toBe("unfreeze-needs-human")
    expect((await json(["policy", "unfreeze", "--principal", "agent", "--scope", "layer=bronze"], cwd, human)).code).toBe(0)
    expect((await json(["run", "--model", "raw_events"], cwd, agent)).code).toBe(0)
    expect(before).toEqual(["gold.gold_customers"])
  })
})
