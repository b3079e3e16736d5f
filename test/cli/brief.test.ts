import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import { createHash } from "node:crypto"
import { existsSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { CURRENT_SCHEMA_VERSION } from "../../src/services/StateStore/migrations"
import { makeProject, runCli } from "../support/cli"
import { writeStoreAtVersion } from "../support/stateStore"

const sqlite = (path: string, sql: string) => execFileSync("sqlite3", [path, sql], { encoding: "utf8" })
const q = (v: string | number | null) => (v === null ? "NULL" : typeof v === "number" ? String(v) : `'${v.replace(/'/g, "''")}'`)
const ago = (hours: number) => new Date(Date.now() - hours * 3_600_000).toISOString()

const ledgerCols = "decision_ref, kind, timestamp, principal, principal_id, principal_id_source, target_principal, capability, model, effect, rule_id, plan_id, reason"
const ledgerRow = (ts: string, kind: string, principal: string, id: string | null, model: string, effect: string | null, rule: number | null, plan: string, target: string | null = null) =>
  `INSERT INTO ledger (${ledgerCols}) VALUES (${[`${ts}|${plan}|${model}`, kind, ts, principal, id, id === null ? null : "flag", target, "apply", model, effect, rule, plan, "seeded"].map(q).join(", ")});`
const runRow = (id: string, ts: string, status: string, plan: string | null, failed: number) =>
  `INSERT INTO runs (run_id, started_at, finished_at, status, trigger, partition_from, partition_to, models_total, models_failed, models_skipped, plan_id)
   VALUES (${[id, ts, ts, status, plan === null ? "manual" : `apply:${plan}`, null, null, 2, failed, 0, plan].map(q).join(", ")});`
const modelRow = (run: string, model: string, position: number, status: string, ms: number, rows: number, error: string | null, warnings: ReadonlyArray<string>) =>
  `INSERT INTO run_models (run_id, model_name, position, status, strategy, started_at, finished_at, duration_ms, rows_affected, attempts, sql_hash, recipe_hash, error_code, error_message, warnings_json)
   VALUES (${[run, model, position, status, "table", null, null, ms, rows, 1, "s", "r", error === null ? null : "E1", error, JSON.stringify(warnings)].map(q).join(", ")});`

const PLAN_PENDING = "a".repeat(64)
const PLAN_APPROVED = "b".repeat(64)

let dir = ""
const brief = (args: ReadonlyArray<string>, state: string) => runCli(["brief", "--state-path", state, ...args], { cwd: dir })
const briefJson = async (args: ReadonlyArray<string>, state: string) => {
  const r = await brief([...args, "--output", "json"], state)
  expect(r.code, r.stderr).toBe(0)
  return JSON.parse(r.stdout)
}

const seeded = async (name: string) => {
  const store = join(dir, `${name}.sqlite`)
  await Effect.runPromise(writeStoreAtVersion(store, CURRENT_SCHEMA_VERSION))
  sqlite(
    store,
    [
      ledgerRow(ago(30 * 24), "evaluation", "agent", "old-bot", "ancient", "allow", 1, "p0"),
      ledgerRow(ago(48), "escalation", "agent", "bot-1", "orders", "require_review", 2, PLAN_PENDING),
      ledgerRow(ago(3), "evaluation", "agent", "bot-1", "orders", "require_review", 2, PLAN_APPROVED),
      ledgerRow(ago(2.5), "approval", "human", "alice", "orders", null, null, PLAN_APPROVED),
      ledgerRow(ago(2), "evaluation", "human", null, "orders", "allow", null, PLAN_APPROVED),
      ledgerRow(ago(1.5), "evaluation", "agent", "bot-2", "customers", "deny", 1, "p4"),
      ledgerRow(ago(1.2), "verification", "human", "alice", "*", "allow", null, PLAN_APPROVED),
      ledgerRow(ago(1), "freeze", "human", "alice", "layer=gold", "deny", null, "freeze:agent:layer=gold", "agent"),
      runRow("run-old", ago(30 * 24), "success", null, 0),
      runRow("run-applied-0001", ago(1.9), "partial_failure", PLAN_APPROVED, 1),
      modelRow("run-applied-0001", "orders", 0, "success", 1500, 10, null, ["test unique_id warned: 2 duplicates"]),
      modelRow("run-applied-0001", "customers", 1, "failed", 500, 0, "division by zero", [])
    ].join("\n")
  )
  return store
}

beforeAll(() => {
  dir = makeProject({ "pcli.toml": "[policy]\nversion = 1\n", "models/.keep": "" })
})

describe("pcli brief", () => {
  it("with no state store: every section unavailable, exit 0, nothing created", async () => {
    const missing = join(dir, "missing.sqlite")
    const out = await briefJson([], missing)
    for (const s of ["escalations", "agent_activity", "runs", "drift", "freshness", "quality", "cost", "autonomy", "scheduler"]) {
      expect(out[s].availability, s).toBe("unavailable")
      expect(out[s].note).toContain("state store not found")
    }
    expect(out.since_timestamp).toBeUndefined()
    expect(existsSync(missing)).toBe(false)
  })

  it("--since 7d: sections from the window, pending escalations over the whole ledger, and it writes nothing", async () => {
    const store = await seeded("week")
    const before = { bytes: createHash("sha256").update(readFileSync(store)).digest("hex"), mtime: statSync(store).mtimeMs }
    const out = await briefJson(["--since", "7d"], store)
    expect(out.since_mode).toBe("7d")
    expect(Date.parse(out.generated_at) - Date.parse(out.since_timestamp)).toBe(7 * 86_400_000)
    expect(out.ledger_head_hash).toMatch(/^[0-9a-f]{64}$/)
    // Approval, verification and freeze rows are not evaluations; the 30-day-old row is outside the window.
    expect(out.agent_activity).toMatchObject({ availability: "available", total: 4, allow: 1, require_review: 2, deny: 1 })
    expect(out.agent_activity.by_principal.map((p: { principal: string }) => p.principal)).toEqual(["human(unrecorded)", "agent(bot-1)", "agent(bot-2)"])
    expect(out.agent_activity.decisions[0]).toMatchObject({ model: "customers", effect: "deny", rule_id: 1, plan_id: "p4" })
    expect(out.escalations).toMatchObject({ availability: "available", ranking: "recency", total: 1, pending: [{ plan_id: PLAN_PENDING }] })
    expect(out.runs).toMatchObject({ availability: "available", total: 1, succeeded: 0, failed: 1, runs: [{ run_id: "run-applied-0001", plan_id: PLAN_APPROVED }] })
    expect(out.quality).toMatchObject({ availability: "available", executions: 2, failed: 1, warnings: 1 })
    expect(out.cost).toMatchObject({ availability: "available", duration_ms: 2000, rows_affected: 10 })
    expect(out.autonomy.active_freezes).toEqual([expect.objectContaining({ principal: "agent", scope: "layer=gold" })])
    for (const s of ["drift", "scheduler"]) expect(out[s].availability).toBe("unavailable")
    expect(out.freshness.availability).not.toBe("unavailable")

    const md = await brief(["--since", "24h"], store)
    expect(md.code, md.stderr).toBe(0)
    expect(md.stdout).toMatch(/^# pcli brief\n\n_Window: \S+ → \S+ {2}\(mode: 24h\)_/)
    const titles = [...md.stdout.matchAll(/^## (.+)$/gm)].map((m) => m[1])
    expect(titles).toEqual(["Needs you", "Agent activity", "Runs", "Drift", "Freshness", "Quality", "Cost", "Autonomy", "Scheduler"])
    expect(md.stdout).toContain("_unavailable: pcli records no drift checks_")
    // Every event line cites a run, plan or decision; plan ids are cut to 12 characters and an ellipsis,
    // run ids and decision refs are whole (they are pasted into `history` and `audit --for`).
    const events = md.stdout.split("\n").filter((l) => l.startsWith("- "))
    expect(events.length).toBeGreaterThan(4)
    for (const line of events) expect(line).toMatch(/(run|plan|decision) `[^`]+`/)
    expect(md.stdout).toContain(`plan \`${"a".repeat(12)}…\``)
    const day = await briefJson(["--since", "24h"], store)
    const refs = day.agent_activity.decisions.map((d: { decision_ref: string }) => d.decision_ref)
    const runIds = day.runs.runs.map((r: { run_id: string }) => r.run_id)
    expect([...refs, ...runIds].some((id: string) => id.length > 12)).toBe(true)
    for (const ref of refs) expect(md.stdout).toContain(`decision \`${ref}\``)
    for (const id of runIds) expect(md.stdout).toContain(`- run \`${id}\``)
    // 24h and 7d leave the store byte-identical.
    expect(createHash("sha256").update(readFileSync(store)).digest("hex")).toBe(before.bytes)
    expect(statSync(store).mtimeMs).toBe(before.mtime)
    expect(sqlite(store, "SELECT count(*) FROM meta WHERE key = 'last_brief_at'").trim()).toBe("0")
  })

  it("--since last covers all history first, advances the cursor, and a second digest is empty", async () => {
    const store = await seeded("cursor")
    const first = await briefJson([], store)
    expect(first.since_mode).toBe("last")
    expect(first.since_timestamp).toBeUndefined()
    expect(first.agent_activity.total).toBe(5)
    expect(first.runs.total).toBe(2)
    expect(sqlite(store, "SELECT value FROM meta WHERE key = 'last_brief_at'").trim()).toBe(first.generated_at)

    const second = await briefJson(["--since", "last"], store)
    expect(second.since_timestamp).toBe(first.generated_at)
    expect(second.agent_activity).toMatchObject({ availability: "no_data", total: 0, decisions: [] })
    expect(second.runs).toMatchObject({ availability: "no_data", total: 0 })
    // The review queue is current state, not window-bound.
    expect(second.escalations.total).toBe(1)
    expect(sqlite(store, "SELECT value FROM meta WHERE key = 'last_brief_at'").trim()).toBe(second.generated_at)
  })

  it("an unknown --since is a malformed value: exit 1, invalid-since", async () => {
    const r = await brief(["--since", "30d"], join(dir, "missing.sqlite"))
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/^error\[invalid-since\]: --since must be one of last, 24h, 7d, got '30d'/)
  })
})
