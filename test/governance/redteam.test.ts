import { DuckDBInstance } from "@duckdb/node-api"
import { createHash } from "node:crypto"
import { execFileSync } from "node:child_process"
import { readdirSync, readFileSync, renameSync, rmSync, utimesSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { makeProject } from "../support/cli"
import { commitAll } from "../support/mcpClient"
import { agent, human, layeredSidecar, projectCli } from "./support"

// Red-team attempts (decisions.md 33) not covered elsewhere: an agent rewriting the compile cache, and
// renaming or retargeting a model onto a table to shed the table's build record. Rule ids are positions.
const POLICY = `[policy]
version = 1
default_agent_effect = "require_review"

[[policy.rules]]
principal = "agent"
capability = "apply"
effect = "allow"
scope = { layer = "bronze" }

[[policy.rules]]
principal = "agent"
capability = "apply"
effect = "deny"
scope = { contracted = true }

[[policy.rules]]
principal = "agent"
capability = "apply"
effect = "deny"
scope = { models = ["bronze_ledger"] }

[[policy.rules]]
principal = "agent"
capability = "schema_change.additive"
effect = "allow"
scope = { layer = "tin" }

[[policy.rules]]
principal = "agent"
capability = "schema_change.breaking"
effect = "require_review"
scope = { layer = "bronze" }
`

const CONTRACT = `[[columns]]\nname = "id"\ntype = "INTEGER"\nnullable = false\n`
const ORIGINAL: Record<string, string> = {
  "models/bronze_orders.sql": "SELECT 1 AS id",
  "models/bronze_orders.toml": layeredSidecar("bronze_orders", "bronze"),
  "models/bronze_orders.contract.toml": CONTRACT,
  "models/bronze_ledger.sql": "SELECT 10 AS amount",
  "models/bronze_ledger.toml": layeredSidecar("bronze_ledger", "bronze"),
  "models/bronze_free.sql": "SELECT 7 AS id",
  "models/bronze_free.toml": layeredSidecar("bronze_free", "bronze"),
  "models/silver_free.sql": "SELECT id FROM bronze.bronze_free",
  "models/silver_free.toml": layeredSidecar("silver_free", "silver"),
  "models/tin_solo.sql": "SELECT 1 AS id, 'a' AS name",
  "models/tin_solo.toml": layeredSidecar("tin_solo", "tin")
}

let cwd = ""
const { json, rowsOf } = projectCli(() => cwd)

const write = (files: Record<string, string | null>) => {
  for (const [file, text] of Object.entries(files)) {
    if (text === null) rmSync(join(cwd, file), { force: true })
    else writeFileSync(join(cwd, file), text)
  }
}
/** Puts the project back as committed (the renamed files removed). */
const restore = (...extra: ReadonlyArray<string>) => write({ ...ORIGINAL, ...Object.fromEntries(extra.map((f) => [f, null])) })

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

/** An agent's `pcli run <args>`, refused as needing a plan; its output and the ledger rows it wrote. */
const refusedAgentRun = async (args: ReadonlyArray<string>) => {
  const { result, rows } = await rowsOf(() => json(["run", ...args], agent))
  expect(result.code, result.stderr).toBe(1)
  expect(result.out.error.code).toBe("run-needs-plan")
  return { result, rows }
}

/** An agent run of `model` is refused before any work, one deny row naming `rule` as the table was last built. */
const refusedRun = async (model: string, rule: number, detail: string) => {
  const { rows } = await refusedAgentRun(["--model", model])
  expect(rows.map((r) => [r.model, r.effect, r.rule_id])).toEqual([[model, "deny", rule]])
  expect(String(rows[0]!["reason"])).toContain("as last built: denied by rule")
  expect(String(rows[0]!["reason"])).toContain(detail)
}

/**
 * What an agent can do to `.pcli/compile-cache`: replace `from` with `to` in every shard and recompute
 * the shard's digest (an unkeyed hash of its body). Returns how many shards it rewrote.
 */
const poisonCache = (from: string, to: string): number => {
  const dir = join(cwd, ".pcli/compile-cache")
  let rewritten = 0
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".json"))) {
    const bytes = readFileSync(join(dir, file), "latin1")
    const newline = bytes.indexOf("\n")
    const body = bytes.slice(newline + 1)
    if (!body.includes(from)) continue
    const poisoned = body.split(from).join(to)
    const header = { ...JSON.parse(bytes.slice(0, newline)), digest: createHash("sha1").update(Buffer.from(poisoned, "latin1")).digest("base64url") }
    writeFileSync(join(dir, file), `${JSON.stringify(header)}\n${poisoned}`, "latin1")
    rewritten++
  }
  return rewritten
}

beforeAll(async () => {
  cwd = makeProject({
    "pcli.toml": `[adapter.local]\ntype = "embedded"\n\n${POLICY}`,
    ".gitignore": ".pcli/\nmodels/.pcli-state.sqlite*\n",
    ...ORIGINAL
  })
  commitAll(cwd)
  // Old enough that a compile trusts their stats: the cache, not the files, would answer.
  const hourAgo = new Date(Date.now() - 3_600_000)
  for (const file of readdirSync(join(cwd, "models"))) utimesSync(join(cwd, "models", file), hourAgo, hourAgo)
  const built = await json(["run"], human)
  expect(built.code, built.stderr).toBe(0)
})

describe("a governed project builds and gates from its files, never its compile cache (an agent can write it)", () => {
  it("SQL rewritten in the cache (its digest recomputed) is not what a human's run builds", async () => {
    const compiled = await json(["compile"], human)
    expect(compiled.code, compiled.stderr).toBe(0)
    poisonCache("SELECT 7 AS id", "SELECT 666 AS id")
    const rebuilt = await json(["run", "--model", "bronze_free", "--full-refresh"], human)
    expect(rebuilt.code, rebuilt.stderr).toBe(0)
    expect(await value("SELECT id FROM bronze.bronze_free")).toBe(7)
  })
})

describe("a model renamed or retargeted onto a table is judged as the table was last built", () => {
  it("renaming a contracted model (its contract dropped) and running the new name is refused; the table is untouched", async () => {
    renameSync(join(cwd, "models/bronze_orders.sql"), join(cwd, "models/bronze_orders_v2.sql"))
    write({
      "models/bronze_orders_v2.sql": "SELECT 2 AS id",
      "models/bronze_orders_v2.toml": layeredSidecar("bronze_orders_v2", "bronze").replace('table = "bronze_orders_v2"', 'table = "bronze_orders"'),
      "models/bronze_orders.toml": null,
      "models/bronze_orders.contract.toml": null
    })
    try {
      await refusedRun("bronze_orders_v2", 1, "contract removed (bronze.bronze_orders as last built by bronze_orders)")
      expect(await value("SELECT id FROM bronze.bronze_orders")).toBe(1)
    } finally {
      restore("models/bronze_orders_v2.sql", "models/bronze_orders_v2.toml")
    }
  })

  it("a rename with nothing else changed still meets a rule naming the old model; a case variant of the table is the same table", async () => {
    write({
      "models/bronze_ledger.sql": null,
      "models/bronze_ledger.toml": null,
      "models/ledger2.sql": "SELECT -1 AS amount",
      "models/ledger2.toml": layeredSidecar("ledger2", "bronze", "", "w", "BRONZE").replace('table = "ledger2"', 'table = "Bronze_Ledger"')
    })
    try {
      await refusedRun("ledger2", 2, "denied by rule 2")
      expect(await value("SELECT amount FROM bronze.bronze_ledger")).toBe(10)
    } finally {
      restore("models/ledger2.sql", "models/ledger2.toml")
    }
  })

  it("retargeting an allowed model onto the contracted model's table (the contracted model removed) is refused", async () => {
    write({
      "models/bronze_orders.sql": null,
      "models/bronze_orders.toml": null,
      "models/bronze_orders.contract.toml": null,
      "models/silver_free.sql": null,
      "models/silver_free.toml": null,
      "models/bronze_free.toml": layeredSidecar("bronze_free", "bronze").replace('table = "bronze_free"', 'table = "bronze_orders"')
    })
    try {
      await refusedRun("bronze_free", 1, "(bronze.bronze_orders as last built by bronze_orders)")
      expect(await value("SELECT id FROM bronze.bronze_orders")).toBe(1)
    } finally {
      restore()
    }
  })

  it("once a human builds the renamed model, the table's record is its own: the agent's next run is judged as that build", async () => {
    write({
      "models/bronze_ledger.sql": null,
      "models/bronze_ledger.toml": null,
      "models/ledger_next.sql": "SELECT 11 AS amount",
      "models/ledger_next.toml": layeredSidecar("ledger_next", "bronze").replace('table = "ledger_next"', 'table = "bronze_ledger"')
    })
    const rebuilt = await json(["run", "--model", "ledger_next"], human)
    expect(rebuilt.code, rebuilt.stderr).toBe(0)
    try {
      write({ "models/ledger_next.sql": "SELECT 12 AS amount" })
      const { result, rows } = await rowsOf(() => json(["run", "--model", "ledger_next"], agent))
      expect(result.code, result.stderr).toBe(0)
      expect(rows.map((r) => [r.model, r.effect, r.rule_id])).toEqual([["ledger_next", "allow", 0]])
      expect(await value("SELECT amount FROM bronze.bronze_ledger")).toBe(12)
    } finally {
      restore("models/ledger_next.sql", "models/ledger_next.toml")
    }
  })
})

describe("an agent's run is judged at its change class since the last build, as its plan would be", () => {
  it("where agents may apply but breaking changes need review, a run that drops a built column is refused (a value change still runs: the rename tests above)", async () => {
    write({ "models/bronze_free.sql": "SELECT 7 AS other" })
    try {
      const { rows } = await refusedAgentRun(["--model", "bronze_free"])
      expect(rows.map((r) => [r.model, r.capability, r.effect, r.rule_id])).toEqual([["bronze_free", "schema_change.breaking", "require_review", 4]])
      expect(String(rows[0]!["reason"])).toContain("column_removed id since the last build")
      expect(await value("SELECT id FROM bronze.bronze_free")).toBe(7)
    } finally {
      restore()
    }
  })
})

describe("a selector is judged by every model it reaches", () => {
  it("an agent's run --select bronze_free+ reaches silver_free (default require_review): refused, nothing built", async () => {
    write({ "models/bronze_free.sql": "SELECT 8 AS id" })
    try {
      const { result, rows } = await refusedAgentRun(["--select", "bronze_free+"])
      expect(result.out.error.message).toContain("silver_free (require_review)")
      expect(rows.map((r) => [r.model, r.effect]).sort()).toEqual([["bronze_free", "allow"], ["silver_free", "require_review"]])
      expect(await value("SELECT id FROM bronze.bronze_free")).toBe(7)
    } finally {
      restore()
    }
  })
})

/** An agent's plan of tin_solo (agents may make additive changes on layer tin, nothing else): its one change, its kind, and an agent apply of it. */
const planSolo = async (args: ReadonlyArray<string> = []) => {
  const plan = await json(["plan", "--model", "tin_solo", ...args], agent)
  expect(plan.code, plan.stderr).toBe(0)
  return { plan: plan.out, apply: () => json(["apply", plan.out.plan_id], agent) }
}

describe("a plan's base is the agent's to edit, the last build is not (decisions.md 33)", () => {
  it("with .pcli/applied removed, dropping a built column is breaking, not model_added: an escalation the agent cannot apply", async () => {
    const baseline = await json(["plan", "--model", "tin_solo"], human)
    expect(baseline.code, baseline.stderr).toBe(0)
    expect((await json(["apply", baseline.out.plan_id], human)).code).toBe(0)
    rmSync(join(cwd, ".pcli/applied"), { recursive: true, force: true })
    write({ "models/tin_solo.sql": "SELECT 1 AS id" })
    try {
      const { plan, apply } = await planSolo()
      expect(plan.changes).toMatchObject([{ model: "tin_solo", change_class: "schema_change.breaking", before: null }])
      expect(plan.changes[0].findings).toContainEqual({ kind: "column_removed", column: "name" })
      expect(plan.kind).toBe("escalation")
      const applied = await apply()
      expect(applied.code).toBe(1)
      expect(await value("SELECT name FROM tin.tin_solo")).toBe("a")
    } finally {
      restore()
    }
  })

  it("a crafted --base that makes the change look additive is judged against the build too", async () => {
    write({ "models/tin_solo.sql": "SELECT 1 AS id" })
    execFileSync("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qam", "crafted base"], { cwd })
    write({ "models/tin_solo.sql": "SELECT 1 AS id, 2 AS extra" })
    try {
      const { plan, apply } = await planSolo(["--base", "HEAD"])
      expect(plan.changes).toMatchObject([{ model: "tin_solo", change_class: "schema_change.breaking" }])
      expect(plan.changes[0].findings).toEqual([
        { kind: "column_added", column: "extra" },
        { kind: "column_removed", column: "name", detail: "since the last build" }
      ])
      expect(plan.kind).toBe("escalation")
      expect((await apply()).code).toBe(1)
      expect(await value("SELECT name FROM tin.tin_solo")).toBe("a")
    } finally {
      restore()
    }
  })

  it("an additive change to a built model stays additive and applies", async () => {
    write({ "models/tin_solo.sql": "SELECT 1 AS id, 'a' AS name, 3 AS extra" })
    try {
      const { plan, apply } = await planSolo()
      expect(plan.changes).toMatchObject([{ model: "tin_solo", change_class: "schema_change.additive", findings: [{ kind: "column_added", column: "extra" }] }])
      expect(plan.kind).toBe("run")
      const applied = await apply()
      expect(applied.code, applied.stderr).toBe(0)
      expect(await value("SELECT extra FROM tin.tin_solo")).toBe(3)
    } finally {
      restore()
    }
  })
})

describe("a plan's author and age are the ledger's, not its file's (the agent can rewrite those)", () => {
  it("an agent's plan file claiming a human author and 1000 hours of age neither misleads the queue or the list nor jumps the queue", async () => {
    // Both escalations for an agent: a breaking change on tin (weight 3) outranks a value change on silver (weight 2).
    write({ "models/tin_solo.sql": "SELECT 1 AS id, 'b' AS label", "models/silver_free.sql": "SELECT id FROM bronze.bronze_free WHERE true" })
    try {
      const { plan: breaking } = await planSolo()
      const { result: valued, rows } = await rowsOf(() => json(["plan", "--model", "silver_free"], agent))
      expect([breaking.kind, valued.out.kind], valued.stderr).toEqual(["escalation", "escalation"])
      const file = join(cwd, ".pcli/plans", `${valued.out.plan_id}.json`)
      const forged = { ...JSON.parse(readFileSync(file, "utf8")), principal: { class: "human", id: "alice", source: "env" }, created_at: new Date(Date.now() - 1000 * 3_600_000).toISOString() }
      writeFileSync(file, JSON.stringify(forged, null, 2))

      const queue = await json(["review", "--queue"], human)
      expect(queue.code, queue.stderr).toBe(0)
      const ours = queue.out.pending.filter((i: { plan_id: string }) => i.plan_id === breaking.plan_id || i.plan_id === valued.out.plan_id)
      expect(ours.map((i: { plan_id: string }) => i.plan_id)).toEqual([breaking.plan_id, valued.out.plan_id])
      expect(ours[1]).toMatchObject({ principal: { class: "agent", id: "bot-1", source: "env" }, created_at: rows[0]!["timestamp"] })
      expect(ours[1].staleness_seconds).toBeLessThan(3600)
      expect(queue.out.notes).toContainEqual(expect.stringContaining(`${valued.out.plan_id}: the plan file's author or created_at differ`))
      const listed = await json(["review", "--list"], human)
      expect(listed.out.plans.find((p: { plan_id: string }) => p.plan_id === valued.out.plan_id)).toMatchObject({ principal: { class: "agent", id: "bot-1" }, created_at: rows[0]!["timestamp"] })
      expect(listed.out.notes).toContainEqual(expect.stringContaining(`${valued.out.plan_id}: the plan file's author or created_at differ`))
    } finally {
      restore()
    }
  })

  it("an agent's backfill plan rewritten to a human's class under its own id is still shown as the agent's (the row names the issuer)", async () => {
    const { result: planned, rows } = await rowsOf(() => json(["backfill", "--model", "bronze_free"], agent))
    expect(planned.code, planned.stderr).toBe(0)
    expect(rows.map((r) => r["reason"])).toEqual(["backfill plans are always review-gated and governed as agent; issued by agent"])
    const planId = planned.out.plan_id as string
    const file = join(cwd, ".pcli/plans", `${planId}.json`)
    const plan = JSON.parse(readFileSync(file, "utf8"))
    writeFileSync(file, JSON.stringify({ ...plan, principal: { ...plan.principal, class: "human" } }, null, 2))
    try {
      const queue = await json(["review", "--queue"], human)
      expect(queue.out.pending.find((i: { plan_id: string }) => i.plan_id === planId)).toMatchObject({ kind: "backfill", principal: { class: "agent", id: "bot-1" } })
      expect(queue.out.notes).toContainEqual(expect.stringContaining(`${planId}: the plan file's author or created_at differ`))
    } finally {
      rmSync(file)
    }
  })
})
