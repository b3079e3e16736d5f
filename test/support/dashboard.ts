// A project for the dashboard: the playground's models run twice (the second time with a model that
// fails), a frozen scope, an agent's escalated plan, and two approved products, one tampered with.
import { appendFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { runCli } from "./cli"
import { specText } from "../products/support"

const AGENT = { PCLI_PRINCIPAL: "agent", PCLI_PRINCIPAL_ID: "bot-1" }
const HUMAN = { PCLI_PRINCIPAL: "human", PCLI_PRINCIPAL_ID: "alice" }

const PRODUCT_POLICY = `
[[policy.rules]]
principal = "agent"
capability = "propose"
effect = "allow"
scope = { models = ["mart_customer_ltv"] }

[[policy.rules]]
principal = "agent"
capability = "apply"
effect = "require_review"
scope = { models = ["mart_customer_ltv"] }

[mask]
internal = "none"
`

export interface DashboardProject {
  readonly dir: string
  readonly planId: string
  readonly failedRunId: string
  readonly okRunId: string
}

const must = async (cwd: string, args: ReadonlyArray<string>, env: Record<string, string> = {}, allowExit1 = false) => {
  const r = await runCli(args, { cwd, env })
  if (r.code !== 0 && !(allowExit1 && r.code === 1)) throw new Error(`pcli ${args.join(" ")} exited ${r.code}: ${r.stderr}`)
  return r
}

export const dashboardProject = async (): Promise<DashboardProject> => {
  const dir = join(mkdtempSync(join(tmpdir(), "pcli-dash-")), "shop")
  await must(process.cwd(), ["playground", dir])
  await must(dir, ["run"])
  writeFileSync(join(dir, "models/broken_orders.sql"), "SELECT error('seeded failure') AS x\n")
  writeFileSync(join(dir, "models/broken_orders.toml"), 'name = "broken_orders"\nintent = "Fails on purpose"\n\n[target]\ncatalog = "warehouse"\nschema = "mart"\ntable = "broken_orders"\n\n[tags]\nlayer = "mart"\n')
  await must(dir, ["run"], {}, true)
  const runs = JSON.parse((await must(dir, ["history", "--output", "json"])).stdout) as { runs: Array<{ run_id: string; status: string }> }
  // An agent's additive change to a mart model: no rule allows it, so the plan is escalated for review.
  writeFileSync(join(dir, "models/mart_daily_revenue.sql"), readFileSync(join(dir, "models/mart_daily_revenue.sql"), "utf8").replace(/^SELECT/m, "SELECT 42 AS bonus,"))
  const plan = JSON.parse((await must(dir, ["plan", "--model", "mart_daily_revenue", "--output", "json"], AGENT)).stdout) as { plan_id: string; kind: string }
  if (plan.kind !== "escalation") throw new Error(`expected an escalated plan, got ${plan.kind}`)
  appendFileSync(join(dir, "pcli.toml"), PRODUCT_POLICY)
  mkdirSync(join(dir, "products"), { recursive: true })
  writeFileSync(join(dir, "products/weekly.toml"), specText({ name: "weekly", model: "mart_customer_ltv" }))
  writeFileSync(join(dir, "products/daily.toml"), specText({ name: "daily", model: "mart_customer_ltv" }))
  await must(dir, ["product", "approve", "weekly"], HUMAN)
  await must(dir, ["product", "approve", "daily"], HUMAN)
  const snapshots = join(dir, ".pcli/fulfillment/daily")
  for (const f of readdirSync(snapshots).filter((n) => n.startsWith("approved-"))) appendFileSync(join(snapshots, f), "# tampered\n")
  await must(dir, ["policy", "freeze", "--principal", "agent", "--scope", "layer=staging", "--reason", "schema migration"], HUMAN)
  return {
    dir,
    planId: plan.plan_id,
    failedRunId: runs.runs.find((r) => r.status !== "success")!.run_id,
    okRunId: runs.runs.find((r) => r.status === "success")!.run_id
  }
}
