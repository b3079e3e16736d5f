import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import type { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeProject, runCli } from "../support/cli"
import { commitAll, connectMcp } from "../support/mcpClient"
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

[[policy.rules]]
principal = "agent"
capability = "propose"
effect = "deny"
scope = { models = ["gold_*"] }

[[policy.rules]]
principal = "agent"
capability = "propose"
effect = "deny"
scope = { layer = "gold" }

[[policy.rules]]
principal = "agent"
capability = "propose"
effect = "allow"
scope = { any = true }
`

const CONTRACT = `[[columns]]\nname = "id"\ntype = "INTEGER"\nnullable = false\n\n[[columns]]\nname = "email"\ntype = "VARCHAR"\nnullable = true\n`
const sidecar = (name: string, layer: string, extra = "") =>
  `name = "${name}"\n[target]\ncatalog = "w"\nschema = "${layer}"\ntable = "${name}"\n[tags]\nlayer = "${layer}"\n${extra}`

const gitProject = () => {
  const cwd = makeProject({
    "pcli.toml": `[adapter.local]\ntype = "embedded"\n\n${POLICY}`,
    ".gitignore": ".pcli/\nmodels/.pcli-state.sqlite*\n",
    "models/bronze_raw.sql": "SELECT 1 AS id, 'a' AS name",
    "models/bronze_raw.toml": sidecar("bronze_raw", "bronze"),
    "models/bronze_leaf.sql": "SELECT 1 AS x",
    "models/bronze_leaf.toml": sidecar("bronze_leaf", "bronze"),
    "models/silver_orders.sql": "SELECT id FROM bronze.bronze_raw",
    "models/silver_orders.toml": sidecar("silver_orders", "silver"),
    "models/silver_daily.sql": "SELECT count(*) AS n FROM silver.silver_orders",
    "models/silver_daily.toml": sidecar("silver_daily", "silver"),
    "models/gold_customers.sql": "SELECT 1 AS id, 'a@example.com' AS email",
    "models/gold_customers.toml": sidecar("gold_customers", "gold", `[classification]\nemail = "pii"\n`),
    "models/gold_customers.contract.toml": CONTRACT
  })
  commitAll(cwd)
  return cwd
}

interface ToolResult {
  readonly isError?: boolean
  readonly structuredContent?: Record<string, unknown>
  readonly content: ReadonlyArray<{ readonly type: string; readonly text?: string }>
}

let cwd: string
let client: Client
let transport: StdioClientTransport

const call = async (name: string, args: Record<string, unknown> = {}) => (await client.callTool({ name, arguments: args })) as unknown as ToolResult
const cliJson = async (args: ReadonlyArray<string>) => {
  const r = await runCli([...args, "--output", "json"], { cwd })
  return JSON.parse(r.stdout) as Record<string, unknown>
}
const ledger = () => Effect.runPromise(readLedgerRows(join(cwd, "models", ".pcli-state.sqlite")))
const plans = () => (existsSync(join(cwd, ".pcli/plans")) ? readdirSync(join(cwd, ".pcli/plans")).filter((f) => !f.includes(".reviewed")) : [])
const rss = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1])

beforeAll(async () => {
  cwd = gitProject()
  // PCLI_PRINCIPAL=human and an id cannot turn the server into a human: it is always agent mcp-<profile>.
  ;({ client, transport } = await connectMcp(cwd, { PCLI_PRINCIPAL: "human", PCLI_PRINCIPAL_ID: "alice" }))
})

afterAll(async () => {
  await client?.close()
})

describe("pcli mcp through the official MCP client", () => {
  it("lists every tool with a typed input schema, and none that approves or applies", async () => {
    const { tools } = await client.listTools()
    const byName = new Map(tools.map((t) => [t.name, t]))
    expect([...byName.keys()].sort()).toEqual(
      [
        "audit_query",
        "breaking_change",
        "brief",
        "compile",
        "dependents",
        "draft_model",
        "lineage",
        "list_models",
        "plan_status",
        "policy_check",
        "policy_show",
        "product_status",
        "propose",
        "review_queue"
      ].sort()
    )
    expect(byName.get("lineage")!.inputSchema).toMatchObject({ type: "object", required: ["model"], properties: { model: { type: "string" } } })
    expect(byName.get("policy_check")!.inputSchema).toMatchObject({
      required: ["principal", "capability", "model"],
      properties: { principal: { enum: ["human", "agent"] } }
    })
    expect(byName.get("draft_model")!.inputSchema).toMatchObject({ required: ["name", "sql"], properties: { sidecar: { type: "string" } } })
    expect(byName.get("propose")!.inputSchema).toMatchObject({ properties: { models: { type: "array" }, base: { type: "string" } } })
    expect(byName.get("compile")!.inputSchema).toEqual({ type: "object", properties: {}, required: [], additionalProperties: false })
    expect(byName.get("compile")!.annotations).toMatchObject({ readOnlyHint: true })
    expect(byName.get("propose")!.annotations).toMatchObject({ readOnlyHint: false })
  })

  it("each read tool returns the CLI's --output json as structured content and as text", async () => {
    const same = async (tool: string, args: Record<string, unknown>, cli: ReadonlyArray<string>) => {
      const expected = await cliJson(cli)
      const r = await call(tool, args)
      expect(r.isError, JSON.stringify(r.structuredContent)).toBeFalsy()
      expect(r.structuredContent).toEqual(expected)
      expect(JSON.parse(r.content[0]!.text!)).toEqual(expected)
      return r.structuredContent!
    }
    const compiled = await same("compile", {}, ["compile"])
    await same("policy_check", { principal: "agent", capability: "apply", model: "gold_customers" }, ["policy", "check", "--principal", "agent", "--capability", "apply", "--model", "gold_customers"])
    await same("policy_show", {}, ["policy", "show"])
    await same("review_queue", {}, ["review", "--queue"])
    await same("audit_query", {}, ["audit"])
    await same("audit_query", { actor: "mcp-ci", since: "2020-01-01" }, ["audit", "--actor", "mcp-ci", "--since", "2020-01-01"])

    // The graph tools agree with the compiled project.
    const order = compiled["execution_order"] as ReadonlyArray<string>
    const listed = (await call("list_models")).structuredContent!
    expect((listed["models"] as ReadonlyArray<{ name: string }>).map((m) => m.name)).toEqual(order)
    expect((await call("lineage", { model: "silver_orders" })).structuredContent).toEqual({
      command: "lineage",
      model: "silver_orders",
      upstream: ["bronze_raw"],
      downstream: ["silver_daily"],
      upstream_closure: ["bronze_raw"],
      downstream_closure: ["silver_daily"],
      sources: []
    })
    expect((await call("dependents", { model: "bronze_raw" })).structuredContent).toEqual({
      command: "dependents",
      model: "bronze_raw",
      direct: ["silver_orders"],
      transitive: ["silver_orders", "silver_daily"],
      count: 2
    })
    writeFileSync(join(cwd, "models/bronze_raw.sql"), "SELECT 1 AS id")
    const breaking = (await call("breaking_change", { model: "bronze_raw" })).structuredContent!
    expect(breaking).toMatchObject({ command: "breaking_change", model: "bronze_raw", base: { ref: "HEAD" }, changed: true, change_class: "schema_change.breaking", breaking: true })
    writeFileSync(join(cwd, "models/bronze_raw.sql"), "SELECT 1 AS id, 'a' AS name")
    expect((await call("breaking_change", { model: "bronze_raw", base: "HEAD" })).structuredContent).toMatchObject({ changed: false, breaking: false })

    // An unknown product is the CLI's error code, as a tool error.
    const product = await call("product_status", { name: "nope" })
    const cliProduct = await runCli(["product", "status", "nope", "--output", "json"], { cwd })
    expect(product.isError).toBe(true)
    expect(product.structuredContent!["code"]).toBe(JSON.parse(cliProduct.stdout).error.code)
    expect(product.structuredContent!["remediation_hint"]).toEqual(expect.any(String))

    // brief: the CLI's JSON but for the clock fields the interface exempts.
    const { generated_at: _g, since_timestamp: _s, ...viaCli } = await cliJson(["brief", "--since", "7d"])
    const viaTool = await call("brief", { since: "7d" })
    expect(viaTool.isError, JSON.stringify(viaTool.structuredContent)).toBeFalsy()
    const { generated_at: _tg, since_timestamp: _ts, ...viaToolBody } = viaTool.structuredContent!
    expect(viaToolBody).toEqual(viaCli)
    expect(_tg).toEqual(expect.any(String))
  })

  it("propose: deny records no plan; require_review records an ai_authored plan for a human; allow returns the plan; every evaluation is attributed to mcp-ci", async () => {
    const before = (await ledger()).length
    // deny: the gold model changes; propose is checked first (decisions.md 39) and rule 2 denies it, before apply's rule 0 is asked.
    writeFileSync(join(cwd, "models/gold_customers.sql"), "SELECT 1 AS id, 'b@example.com' AS email")
    const denied = await call("propose", { models: ["gold_customers"], base: "HEAD" })
    expect(denied.isError).toBe(true)
    expect(denied.structuredContent).toMatchObject({ code: "policy_denied", model: "gold_customers", capability: "propose", rule: 2, remediation_hint: expect.any(String) })
    expect(plans()).toEqual([])
    execFileSync("git", ["checkout", "--", "models/gold_customers.sql"], { cwd })

    // require_review: a silver value change falls to the default agent effect.
    writeFileSync(join(cwd, "models/silver_orders.sql"), "SELECT id + 0 AS id FROM bronze.bronze_raw")
    const review = await call("propose", { models: ["silver_orders"], base: "HEAD" })
    expect(review.isError).toBe(true)
    const planId = review.structuredContent!["plan_id"] as string
    expect(review.structuredContent).toMatchObject({
      code: "policy_review_required",
      commands: [`pcli review ${planId} --approve`, `pcli apply ${planId}`]
    })
    expect(JSON.parse(readFileSync(join(cwd, ".pcli/plans", `${planId}.json`), "utf8")).kind).toBe("ai_authored")
    const status = await call("plan_status", { plan_id: planId })
    expect(status.structuredContent).toEqual(await cliJson(["review", planId, "--status"]))
    // Ranking moves with the clock between the two reads; everything else is the same.
    const timeless = (queue: unknown) => JSON.parse(JSON.stringify(queue, (k, v) => (k === "score" || k === "staleness_seconds" ? undefined : v)))
    expect(timeless((await call("review_queue")).structuredContent)).toEqual(timeless(await cliJson(["review", "--queue"])))
    execFileSync("git", ["checkout", "--", "models/silver_orders.sql"], { cwd })

    // allow: an additive change to a bronze model nothing reads.
    writeFileSync(join(cwd, "models/bronze_leaf.sql"), "SELECT 1 AS x, 2 AS y")
    const allowed = await call("propose", { models: ["bronze_leaf"], base: "HEAD" })
    expect(allowed.isError, JSON.stringify(allowed.structuredContent)).toBeFalsy()
    expect(allowed.structuredContent).toMatchObject({ command: "propose", plan_id: expect.any(String), models: ["bronze_leaf"] })
    expect(plans().sort()).toEqual([`${planId}.json`, `${allowed.structuredContent!["plan_id"]}.json`].sort())
    execFileSync("git", ["checkout", "--", "models/bronze_leaf.sql"], { cwd })

    const rows = (await ledger()).slice(before)
    // Each proposal's propose row (one per changed model) comes before the apply rows it led to.
    expect(rows.map((r) => [r["effect"], r["model"]])).toEqual([
      ["deny", "gold_customers"],
      ["allow", "silver_orders"],
      ["require_review", "silver_orders"],
      ["require_review", "silver_daily"],
      ["allow", "bronze_leaf"],
      ["allow", "bronze_leaf"]
    ])
    expect(rows.map((r) => r["capability"])).toEqual(["propose", "propose", "value_change", "value_change", "propose", "schema_change.additive"])
    for (const row of rows) {
      expect(row).toMatchObject({ principal: "agent", principal_id: "mcp-ci", principal_id_source: "mcp_profile", principal_id_verified: 0 })
    }
    expect(rows[0]!["plan_id"]).toBeNull()
    // No tool approves or applies: the plan still needs a human marker.
    expect(existsSync(join(cwd, ".pcli/plans", `${planId}.reviewed.json`))).toBe(false)
  })

  it("draft_model: deny leaves the files untouched; a compile error restores them exactly; allow writes and compiles", async () => {
    const goldSql = readFileSync(join(cwd, "models/gold_customers.sql"))
    const before = (await ledger()).length
    const denied = await call("draft_model", { name: "gold_customers", sql: "SELECT 2 AS id" })
    // The rule's position twice: `rule` (a number) and the reference wire format's `policy_rule` (a string).
    expect(denied.structuredContent).toMatchObject({ code: "policy_denied", model: "gold_customers", rule: 2, policy_rule: "2" })
    expect(readFileSync(join(cwd, "models/gold_customers.sql")).equals(goldSql)).toBe(true)

    const silverSql = readFileSync(join(cwd, "models/silver_orders.sql"))
    const silverToml = readFileSync(join(cwd, "models/silver_orders.toml"))
    const broken = await call("draft_model", { name: "silver_orders", sql: "SELECT id FROM bronze.no_such_table", sidecar: "name = 1\n" })
    expect(broken.isError).toBe(true)
    expect(broken.structuredContent!["code"]).toEqual(expect.any(String))
    expect(readFileSync(join(cwd, "models/silver_orders.sql")).equals(silverSql)).toBe(true)
    expect(readFileSync(join(cwd, "models/silver_orders.toml")).equals(silverToml)).toBe(true)

    // A new model with no sidecar does not compile, so nothing of it stays behind.
    const lone = await call("draft_model", { name: "bronze_new", sql: "SELECT 1 AS z" })
    expect(lone.isError).toBe(true)
    expect(existsSync(join(cwd, "models/bronze_new.sql"))).toBe(false)

    // Policy sees the model as drafted: a sidecar moving a model into a denied layer is refused, new or not.
    const relabelled = await call("draft_model", { name: "silver_new", sql: "SELECT 1 AS z", sidecar: sidecar("silver_new", "gold") })
    expect(relabelled.structuredContent).toMatchObject({ code: "policy_denied", model: "silver_new" })
    expect(existsSync(join(cwd, "models/silver_new.sql"))).toBe(false)
    const moved = await call("draft_model", { name: "silver_orders", sql: "SELECT id FROM bronze.bronze_raw", sidecar: sidecar("silver_orders", "gold") })
    expect(moved.structuredContent).toMatchObject({ code: "policy_denied", model: "silver_orders" })
    expect(readFileSync(join(cwd, "models/silver_orders.toml")).equals(silverToml)).toBe(true)

    const ok = await call("draft_model", { name: "bronze_new", sql: "SELECT 1 AS z", sidecar: sidecar("bronze_new", "bronze") })
    expect(ok.isError, JSON.stringify(ok.structuredContent)).toBeFalsy()
    expect(ok.structuredContent).toMatchObject({ command: "draft_model", model: "bronze_new", policy: "evaluated", effect: "allow", model_count: 6 })
    expect(readFileSync(join(cwd, "models/bronze_new.sql"), "utf8")).toBe("SELECT 1 AS z")
    // The server sees the new model at once (no stale compile).
    expect((await call("policy_check", { principal: "agent", capability: "propose", model: "bronze_new" })).structuredContent).toMatchObject({ effect: "allow" })

    const rows = (await ledger()).slice(before)
    expect(rows.map((r) => [r["capability"], r["model"], r["effect"]])).toEqual([
      ["propose", "gold_customers", "deny"],
      ["propose", "silver_orders", "allow"],
      ["propose", "bronze_new", "allow"],
      ["propose", "silver_new", "deny"],
      ["propose", "silver_orders", "deny"],
      ["propose", "bronze_new", "allow"]
    ])
    for (const row of rows) expect(row).toMatchObject({ principal_id: "mcp-ci", principal_id_source: "mcp_profile" })
  })

  it("a malformed argument is an invalid-params error naming the field, and the server keeps serving", async () => {
    await expect(client.callTool({ name: "lineage", arguments: {} })).rejects.toThrow(/-32602|model/)
    await expect(client.callTool({ name: "policy_check", arguments: { principal: "robot", capability: "apply", model: "x" } })).rejects.toThrow(/principal/)
    await expect(client.callTool({ name: "draft_model", arguments: { name: "../etc/passwd", sql: "SELECT 1" } })).rejects.toThrow(/name/)
    await expect(client.callTool({ name: "propose", arguments: { models: "bronze_leaf" } })).rejects.toThrow(/models/)
    await expect(client.callTool({ name: "lineage", arguments: { model: "bronze_raw", extra: 1 } })).rejects.toThrow(/extra/)
    expect((await call("lineage", { model: "bronze_raw" })).isError).toBeFalsy()
  })

  it("ends with exit 0 and nothing on stdout when the client closes stdin; a bad profile fails before serving", async () => {
    const closed = await runCli(["mcp"], { cwd })
    expect(closed).toMatchObject({ code: 0, stdout: "" })
    const bad = await runCli(["mcp", "--profile", "Bad Name"], { cwd })
    expect(bad.code).toBe(1)
    expect(bad.stderr).toMatch(/^error\[invalid-principal-id\]: --profile/)
  })

  it("survives 1,000 sequential calls with flat memory", async () => {
    const pid = transport.pid!
    const args = { principal: "agent", capability: "apply", model: "gold_customers" }
    for (let i = 0; i < 500; i++) await call(i % 2 === 0 ? "policy_check" : "policy_show", i % 2 === 0 ? args : {})
    const warm = rss(pid)
    for (let i = 0; i < 1000; i++) {
      const r = await call(i % 2 === 0 ? "policy_check" : "policy_show", i % 2 === 0 ? args : {})
      if (r.isError === true) throw new Error(JSON.stringify(r.structuredContent))
    }
    const end = rss(pid)
    expect(end).toBeLessThanOrEqual(warm * 1.2)
  }, 120_000)
})
