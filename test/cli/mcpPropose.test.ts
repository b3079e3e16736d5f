import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import { existsSync, readdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeProject, runCli } from "../support/cli"
import { commitAll, connectMcp } from "../support/mcpClient"
import { readLedgerRows } from "../support/stateStore"

// propose and apply disagree on purpose, each way round (decisions.md 39).
const POLICY = `[policy]
version = 1
default_agent_effect = "deny"

[[policy.rules]]
principal = "agent"
capability = "propose"
effect = "deny"
scope = { models = ["bronze_*"] }

[[policy.rules]]
principal = "agent"
capability = "propose"
effect = "allow"
scope = { any = true }

[[policy.rules]]
principal = "agent"
capability = "apply"
effect = "allow"
scope = { models = ["bronze_*"] }

[[policy.rules]]
principal = "agent"
capability = "apply"
effect = "require_review"
scope = { models = ["silver_*"] }
`

const sidecar = (name: string) => `name = "${name}"\n[target]\ncatalog = "w"\nschema = "s"\ntable = "${name}"\n`

let cwd: string
let client: Client

const ledger = () => Effect.runPromise(readLedgerRows(join(cwd, "models", ".pcli-state.sqlite")))
const plans = () => (existsSync(join(cwd, ".pcli/plans")) ? readdirSync(join(cwd, ".pcli/plans")) : [])
const propose = async (models: ReadonlyArray<string>) =>
  (await client.callTool({ name: "propose", arguments: { models, base: "HEAD" } })) as { isError?: boolean; structuredContent?: Record<string, unknown> }

beforeAll(async () => {
  cwd = makeProject({
    "pcli.toml": `[adapter.local]\ntype = "embedded"\n\n${POLICY}`,
    ".gitignore": ".pcli/\nmodels/.pcli-state.sqlite*\n",
    "models/bronze_a.sql": "SELECT 1 AS id",
    "models/bronze_a.toml": sidecar("bronze_a"),
    "models/silver_b.sql": "SELECT 2 AS id",
    "models/silver_b.toml": sidecar("silver_b")
  })
  commitAll(cwd)
  client = (await connectMcp(cwd)).client
})

afterAll(async () => {
  await client?.close()
})

describe("MCP propose checks capability propose before apply (decisions.md 39)", () => {
  it("deny on propose refuses though apply would allow: nothing recorded, one row per model, the refusal names propose", async () => {
    const before = (await ledger()).length
    writeFileSync(join(cwd, "models/bronze_a.sql"), "SELECT 1 AS id, 2 AS extra")
    const denied = await propose(["bronze_a"])
    expect(denied.isError).toBe(true)
    expect(denied.structuredContent).toMatchObject({ code: "policy_denied", model: "bronze_a", capability: "propose", rule: 0, policy_rule: "0" })
    expect(String(denied.structuredContent!["message"])).toContain("(propose)")
    expect(plans()).toEqual([])
    const rows = (await ledger()).slice(before)
    expect(rows.map((r) => [r["capability"], r["model"], r["effect"], r["plan_id"]])).toEqual([["propose", "bronze_a", "deny", null]])
    execFileSync("git", ["checkout", "--", "models/bronze_a.sql"], { cwd })
  })

  it("allow on propose with require_review on apply records an ai_authored plan that apply refuses without a marker", async () => {
    const before = (await ledger()).length
    writeFileSync(join(cwd, "models/silver_b.sql"), "SELECT 2 AS id, 3 AS extra")
    const review = await propose(["silver_b"])
    expect(review.isError).toBe(true)
    expect(review.structuredContent).toMatchObject({ code: "policy_review_required", model: "silver_b", rule: 3, policy_rule: "3" })
    const planId = review.structuredContent!["plan_id"] as string
    expect(plans()).toEqual([`${planId}.json`])
    const rows = (await ledger()).slice(before)
    expect(rows.map((r) => [r["capability"], r["model"], r["effect"], r["plan_id"]])).toEqual([
      ["propose", "silver_b", "allow", planId],
      ["schema_change.additive", "silver_b", "require_review", planId]
    ])
    // The plan needs a human's marker before anyone can apply it.
    const applied = await runCli(["apply", planId, "--output", "json"], { cwd })
    expect(applied.code).toBe(1)
    expect(JSON.parse(applied.stdout).error.code).toBe("marker-missing")
    execFileSync("git", ["checkout", "--", "models/silver_b.sql"], { cwd })
  })
})
