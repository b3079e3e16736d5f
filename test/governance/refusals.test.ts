import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { existsSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeProject } from "../support/cli"
import { commitAll, connectMcp } from "../support/mcpClient"
import { agent, bronzePolicy, human, layeredSidecar, projectCli } from "./support"

// Issue 32 item 7: refusals that left no row, or named the wrong cause, or read a file outside the project.
const POLICY = bronzePolicy("apply")

const sidecar = (name: string) => layeredSidecar(name, "bronze")

let cwd: string
let client: Client
const { json, ledger, rowsOf } = projectCli(() => cwd)
const plans = () => (existsSync(join(cwd, ".pcli/plans")) ? readdirSync(join(cwd, ".pcli/plans")) : [])

beforeAll(async () => {
  cwd = makeProject({
    "pcli.toml": `[adapter.local]\ntype = "embedded"\n\n${POLICY}`,
    ".gitignore": ".pcli/\nmodels/.pcli-state.sqlite*\n",
    "models/bronze_orders.sql": "SELECT 1 AS id",
    "models/bronze_orders.toml": sidecar("bronze_orders")
  })
  commitAll(cwd)
  client = (await connectMcp(cwd)).client
})

afterAll(async () => {
  await client?.close()
})

describe("refusals leave one row and name their cause (issue 32 item 7)", () => {
  it("a reserved principal id, an agent's unknown model and unknown target each leave one refusal row", async () => {
    const reserved = await rowsOf(() => json(["run"], { ...agent, PCLI_PRINCIPAL_ID: "mcp-ci" }))
    expect(reserved.result.code).toBe(1)
    expect(reserved.result.out.error.code).toBe("principal-id-reserved")
    expect(reserved.rows).toHaveLength(1)
    // Recorded under no id: the claimed one is named only in the reason.
    expect(reserved.rows[0]).toMatchObject({ principal: "agent", principal_id: "unnamed", principal_id_source: "env", effect: null })
    expect(String(reserved.rows[0]!["reason"])).toContain("[principal-id-reserved]")

    const model = await rowsOf(() => json(["run", "--model", "no_such_model"], agent))
    expect(model.result.out.error.code).toBe("model-not-found")
    expect(model.rows).toHaveLength(1)
    expect(model.rows[0]).toMatchObject({ principal: "agent", principal_id: "bot-1", capability: "apply", effect: null })
    expect(String(model.rows[0]!["reason"])).toContain("[model-not-found]")

    const target = await rowsOf(() => json(["run", "--target", "no_such_target"], agent))
    expect(target.result.out.error.code).toBe("unknown-target")
    expect(target.rows).toHaveLength(1)
    expect(String(target.rows[0]!["reason"])).toContain("[unknown-target]")
  })

  it("pcli plan and MCP propose with nothing changed write no plan: nothing-to-plan", async () => {
    const plan = await json(["plan", "--base", "HEAD"], human)
    expect(plan.code).toBe(1)
    expect(plan.out.error.code).toBe("nothing-to-plan")
    const proposed = (await client.callTool({ name: "propose", arguments: { models: [], base: "HEAD" } })) as { isError?: boolean; structuredContent?: Record<string, unknown> }
    expect(proposed.isError).toBe(true)
    expect(proposed.structuredContent).toMatchObject({ code: "nothing-to-plan" })
    expect(plans()).toEqual([])
  })

  it("a freeze refusal names the freeze (scope, reason, its ledger row), not the rule that allowed", async () => {
    const frozen = await json(["policy", "freeze", "--principal", "agent", "--scope", "layer=bronze", "--reason", "quarter close"], human)
    expect(frozen.code, frozen.stderr).toBe(0)
    const ref = String(frozen.out.entries[0].decision_ref)
    const run = await json(["run", "--model", "bronze_orders"], agent)
    expect(run.out.error.code).toBe("run-needs-plan")
    for (const part of ["freeze on scope 'layer=bronze'", "quarter close", ref]) expect(run.out.error.message).toContain(part)
    expect(run.out.error.message).not.toContain("rule 0")

    writeFileSync(join(cwd, "models/bronze_orders.sql"), "SELECT 1 AS id WHERE true")
    const plan = await json(["plan", "--base", "HEAD"], agent)
    const apply = await json(["apply", plan.out.plan_id], agent)
    expect(apply.out.error.code).toBe("policy-denied")
    for (const part of ["freeze on scope 'layer=bronze'", "quarter close", ref]) expect(apply.out.error.message).toContain(part)
    expect(apply.out.error.message).not.toMatch(/denied by rule/)
    await json(["policy", "unfreeze", "--principal", "agent", "--scope", "layer=bronze"], human)
  })

  it("a model file linked outside the project is model-outside-project, and its target is never read", async () => {
    const outside = mkdtempSync(join(tmpdir(), "pcli-outside-"))
    writeFileSync(join(outside, "secret.sql"), "SELECT 'TOPSECRET-7731' AS leaked")
    symlinkSync(join(outside, "secret.sql"), join(cwd, "models/evil.sql"))
    writeFileSync(join(cwd, "models/evil.toml"), sidecar("evil"))
    try {
      for (const [args, env] of [[["compile"], human], [["run", "--model", "evil"], agent], [["plan"], agent]] as const) {
        const r = await json(args, env)
        expect(r.code, args.join(" ")).toBe(1)
        expect(r.out.error.code).toBe("model-outside-project")
        expect(r.out.error.message).toContain("evil.sql")
        expect(r.stdout + r.stderr).not.toContain("TOPSECRET")
      }
      expect(JSON.stringify(await ledger())).not.toContain("TOPSECRET")
    } finally {
      rmSync(join(cwd, "models/evil.sql"))
      rmSync(join(cwd, "models/evil.toml"))
      rmSync(outside, { recursive: true, force: true })
    }
  })
})
