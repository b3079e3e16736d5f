import { DuckDBInstance } from "@duckdb/node-api"
import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { Effect } from "effect"
import { existsSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeProject, runCli } from "../support/cli"
import { commitAll, connectMcp } from "../support/mcpClient"
import { readLedgerRows } from "../support/stateStore"

// Issue 32 items 1 and 2: an agent that edits its own project cannot move a model out of scope, and
// cannot alias another model's physical table. Rule ids are positions.
const POLICY = `[policy]
version = 1
default_agent_effect = "require_review"

[[policy.rules]]
principal = "agent"
capability = "apply"
effect = "allow"
scope = { layer = "raw" }

[[policy.rules]]
principal = "agent"
capability = "apply"
effect = "deny"
scope = { layer = "mart" }

[[policy.rules]]
principal = "agent"
capability = "apply"
effect = "deny"
scope = { classifications = ["pii"] }

[[policy.rules]]
principal = "agent"
capability = "apply"
effect = "deny"
scope = { contracted = true }

[[policy.rules]]
principal = "agent"
capability = "propose"
effect = "allow"
scope = { any = true }

[[policy.rules]]
principal = "agent"
capability = "propose"
effect = "deny"
scope = { layer = "mart" }

[[policy.rules]]
principal = "agent"
capability = "schema_change.breaking"
effect = "require_review"
scope = { layer = "raw", tags = { tier = "gold" } }
`

const sidecar = (name: string, layer: string, extra = "", catalog = "warehouse", schema = layer) =>
  `name = "${name}"\n[target]\ncatalog = "${catalog}"\nschema = "${schema}"\ntable = "${name}"\n[tags]\nlayer = "${layer}"\n${extra}`
const CONTRACT = `[[columns]]\nname = "id"\ntype = "INTEGER"\nnullable = false\n`
const PII = `[classification]\nemail = "pii"\n`

const ORIGINAL: Record<string, string> = {
  "models/mart_revenue.sql": "SELECT 100 AS revenue",
  "models/mart_revenue.toml": sidecar("mart_revenue", "mart"),
  "models/stg_orders.sql": "SELECT 1 AS id",
  "models/stg_orders.toml": sidecar("stg_orders", "raw"),
  "models/stg_orders.contract.toml": CONTRACT,
  "models/stg_customers.sql": "SELECT 1 AS id, 'a@example.com' AS email",
  "models/stg_customers.toml": sidecar("stg_customers", "raw", PII),
  "models/mart_customer_ltv.sql": "SELECT 42 AS ltv",
  "models/mart_customer_ltv.toml": sidecar("mart_customer_ltv", "mart"),
  "models/raw_events.sql": "SELECT 1 AS id",
  "models/raw_events.toml": sidecar("raw_events", "raw", `tier = "gold"\n`)
}

const agent = { PCLI_PRINCIPAL: "agent", PCLI_PRINCIPAL_ID: "bot-1" }
let cwd: string
let client: Client

const write = (files: Record<string, string | null>) => {
  for (const [file, text] of Object.entries(files)) {
    if (text === null) rmSync(join(cwd, file), { force: true })
    else writeFileSync(join(cwd, file), text)
  }
}
const restore = () => {
  write(ORIGINAL)
  rmSync(join(cwd, "models/shadow_ltv.sql"), { force: true })
  rmSync(join(cwd, "models/shadow_ltv.toml"), { force: true })
}
const ledger = () => Effect.runPromise(readLedgerRows(join(cwd, "models", ".pcli-state.sqlite")))
const plans = () => (existsSync(join(cwd, ".pcli/plans")) ? readdirSync(join(cwd, ".pcli/plans")).sort() : [])
const json = async (args: ReadonlyArray<string>, env: Record<string, string> = agent) => {
  const r = await runCli([...args, "--output", "json"], { cwd, env })
  return { ...r, out: JSON.parse(r.stdout) as Record<string, any> }
}
/** One value from the embedded warehouse, read after the command closed it. */
const value = async (sql: string): Promise<unknown> => {
  const instance = await DuckDBInstance.create(join(cwd, ".pcli/warehouse.duckdb"), { access_mode: "READ_ONLY" })
  const connection = await instance.connect()
  try {
    return (await connection.runAndReadAll(sql)).getRows()[0]?.[0]
  } finally {
    connection.closeSync()
    instance.closeSync()
  }
}
const callTool = async (name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as { isError?: boolean; structuredContent?: Record<string, unknown> }

/**
 * The attack through agent `run`, `plan` + `apply` and MCP `propose`: each refused with its code,
 * nothing built, one ledger row per model evaluated, the reason naming the attribute that changed.
 */
const attack = async (model: string, check: string, expected: unknown, change: string, rule: number) => {
  // agent run
  let before = (await ledger()).length
  const run = await json(["run", "--model", model])
  expect(run.code, run.stderr).toBe(1)
  expect(run.out["error"].code).toBe("run-needs-plan")
  let rows = (await ledger()).slice(before)
  expect(rows.map((r) => [r.model, r.capability, r.effect, r.rule_id])).toEqual([[model, "schema_change.breaking", "deny", rule]])
  expect(String(rows[0]!.reason)).toContain("as last built: denied by rule")
  expect(String(rows[0]!.reason)).toContain(change)
  expect(await value(check)).toEqual(expected)

  // plan + apply
  before = (await ledger()).length
  const plan = await json(["plan", "--model", model])
  expect(plan.code, plan.stderr).toBe(0)
  expect(plan.out["changes"][0]).toMatchObject({ model, change_class: "schema_change.breaking" })
  expect(plan.out["changes"][0].findings.map((f: { detail?: string }) => f.detail)).toContain(change)
  expect(plan.out["evaluations"]).toMatchObject([{ model, capability: "schema_change.breaking", effect: "deny", rule_id: rule }])
  const applied = await json(["apply", plan.out["plan_id"]])
  expect(applied.code, applied.stderr).toBe(1)
  expect(applied.out["error"].code).toBe("policy-denied")
  rows = (await ledger()).slice(before).filter((r) => r.plan_id === plan.out["plan_id"])
  // One planning row and one apply row per model the plan evaluates.
  expect(rows.map((r) => [r.model, r.effect])).toEqual([...plan.out["models"], ...plan.out["models"]].map((m: string) => [m, "deny"]))
  expect(String(rows.at(-1)!.reason)).toContain(change)
  expect(await value(check)).toEqual(expected)

  // MCP propose: refused, no plan recorded.
  const planned = plans()
  const proposed = await callTool("propose", { models: [model] })
  expect(proposed.isError, JSON.stringify(proposed.structuredContent)).toBe(true)
  expect(proposed.structuredContent).toMatchObject({ code: "policy_denied", model })
  expect(plans()).toEqual(planned)
}

beforeAll(async () => {
  cwd = makeProject({
    "pcli.toml": `[adapter.local]\ntype = "embedded"\n\n${POLICY}`,
    ".gitignore": ".pcli/\nmodels/.pcli-state.sqlite*\n",
    ...ORIGINAL
  })
  commitAll(cwd)
  // A human builds everything: each model's attributes are recorded with its build.
  const built = await runCli(["run"], { cwd, env: { PCLI_PRINCIPAL: "human" } })
  expect(built.code, built.stderr).toBe(0)
  client = (await connectMcp(cwd)).client
})

afterAll(async () => {
  await client?.close()
})

describe("judge scope before and after the change (issue 32 item 1)", () => {
  it("re-tag mart -> raw: run, plan + apply, MCP propose and draft_model are all refused as the model was built", async () => {
    write({ "models/mart_revenue.sql": "SELECT 0 AS revenue", "models/mart_revenue.toml": sidecar("mart_revenue", "raw", "", "warehouse", "mart") })
    await attack("mart_revenue", "SELECT revenue FROM mart.mart_revenue", 100, "tag layer changed mart -> raw", 1)
    // draft_model over files already re-tagged on disk: judged as built (propose denied on mart).
    const before = (await ledger()).length
    const sidecarText = sidecar("mart_revenue", "raw", "", "warehouse", "mart")
    const drafted = await callTool("draft_model", { name: "mart_revenue", sql: "SELECT -1 AS revenue", sidecar: sidecarText })
    expect(drafted.isError).toBe(true)
    expect(drafted.structuredContent).toMatchObject({ code: "policy_denied", model: "mart_revenue" })
    const rows = (await ledger()).slice(before)
    expect(rows.map((r) => [r.model, r.capability, r.effect, r.rule_id])).toEqual([["mart_revenue", "propose", "deny", 5]])
    restore()
  })

  it("contract removal: refused everywhere, and the change is breaking ('contract removed')", async () => {
    write({ "models/stg_orders.contract.toml": null, "models/stg_orders.sql": "SELECT 2 AS id" })
    await attack("stg_orders", "SELECT id FROM raw.stg_orders", 1, "contract removed", 3)
    restore()
  })

  it("classification removal (the pii column nulled): refused everywhere, naming the column", async () => {
    write({ "models/stg_customers.sql": "SELECT 1 AS id, NULL::VARCHAR AS email", "models/stg_customers.toml": sidecar("stg_customers", "raw") })
    await attack("stg_customers", "SELECT email FROM raw.stg_customers", "a@example.com", "classification pii removed from column email", 2)
    restore()
  })
})

describe("an agent run of a model whose scope attributes changed is judged at schema_change.breaking", () => {
  it("re-tiering gold -> silver meets the review rule for breaking changes though apply allows both sides", async () => {
    write({ "models/raw_events.sql": "SELECT 2 AS id", "models/raw_events.toml": sidecar("raw_events", "raw", `tier = "silver"\n`) })
    const before = (await ledger()).length
    const run = await json(["run", "--model", "raw_events"])
    expect(run.code, run.stderr).toBe(1)
    expect(run.out["error"].code).toBe("run-needs-plan")
    const rows = (await ledger()).slice(before)
    expect(rows.map((r) => [r.model, r.capability, r.effect, r.rule_id])).toEqual([["raw_events", "schema_change.breaking", "require_review", 6]])
    expect(String(rows[0]!.reason)).toContain("tag tier changed gold -> silver")
    expect(await value("SELECT id FROM raw.raw_events")).toBe(1)
    restore()
  })
})

describe("one physical table, one owner (issue 32 item 2)", () => {
  it("a staging model aliasing mart.mart_customer_ltv through another catalog is duplicate-target in run, plan and MCP", async () => {
    const shadow = { "models/shadow_ltv.sql": "SELECT 0 AS ltv", "models/shadow_ltv.toml": sidecar("shadow_ltv", "staging", "", "shadowcat", "mart").replace('table = "shadow_ltv"', 'table = "mart_customer_ltv"') }
    write(shadow)
    const compiled = await json(["compile"])
    expect(compiled.code).toBe(1)
    expect(compiled.out["error"].code).toBe("duplicate-target")
    expect(compiled.stderr).toMatch(/^error\[duplicate-target\]: models mart_customer_ltv and shadow_ltv both resolve to relation mart\.mart_customer_ltv/)
    expect(compiled.stderr.split("\n")[0]).not.toContain("SELECT")

    let before = (await ledger()).length
    const run = await json(["run", "--model", "shadow_ltv"])
    expect(run.code).toBe(1)
    expect(run.out["error"].code).toBe("duplicate-target")
    expect((await ledger()).slice(before)).toEqual([]) // nothing evaluated, nothing built

    before = (await ledger()).length
    const plan = await json(["plan"])
    expect(plan.code).toBe(1)
    expect(plan.out["error"].code).toBe("duplicate-target")
    const rows = (await ledger()).slice(before)
    expect(rows.map((r) => [r.model, r.effect])).toEqual([[null, null]])
    expect(String(rows[0]!.reason)).toContain("refused [duplicate-target]")
    expect(await value("SELECT ltv FROM mart.mart_customer_ltv")).toBe(42)

    // MCP: a draft that would alias the table is put back; propose over the aliased files is refused.
    rmSync(join(cwd, "models/shadow_ltv.sql"))
    rmSync(join(cwd, "models/shadow_ltv.toml"))
    const drafted = await callTool("draft_model", { name: "shadow_ltv", sql: shadow["models/shadow_ltv.sql"], sidecar: shadow["models/shadow_ltv.toml"] })
    expect(drafted.isError).toBe(true)
    expect(drafted.structuredContent).toMatchObject({ code: "duplicate-target" })
    expect(existsSync(join(cwd, "models/shadow_ltv.sql"))).toBe(false)
    write(shadow)
    const planned = plans()
    const proposed = await callTool("propose", { models: ["shadow_ltv"] })
    expect(proposed.isError).toBe(true)
    expect(proposed.structuredContent).toMatchObject({ code: "duplicate-target" })
    expect(plans()).toEqual(planned)
    expect(await value("SELECT ltv FROM mart.mart_customer_ltv")).toBe(42)
    restore()
  })
})
