import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import { copyFileSync } from "node:fs"
import { join } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { specText } from "../products/support"
import { makeProject, runCli } from "../support/cli"
import { writeStoreAtVersion } from "../support/stateStore"

const sqlite = (path: string, sql: string) => execFileSync("sqlite3", [path, sql], { encoding: "utf8" })

const cols = "decision_ref, kind, timestamp, principal, principal_id, principal_id_source, capability, model, effect, rule_id, plan_id, reason"
const q = (v: string | number | null) => (v === null ? "NULL" : typeof v === "number" ? String(v) : `'${v}'`)
const seedRow = (ts: string, kind: string, principal: string, id: string | null, model: string, effect: string | null, rule: number | null, plan: string | null) =>
  `INSERT INTO ledger (${cols}) VALUES (${[`${ts}|${plan ?? ""}|${model}`, kind, ts, principal, id, id === null ? null : "flag", "apply", model, effect, rule, plan, "seeded"].map(q).join(", ")});`

let dir = ""
let store = ""
const audit = (args: ReadonlyArray<string>, state = store) => runCli(["audit", "--state-path", state, ...args], { cwd: dir })
const json = async (args: ReadonlyArray<string>, state = store) => {
  const r = await audit([...args, "--output", "json"], state)
  expect(r.code, r.stderr).toBe(0)
  return JSON.parse(r.stdout)
}

beforeAll(async () => {
  dir = makeProject({ "pcli.toml": "[policy]\nversion = 1\n", "models/.keep": "", "products/weekly.toml": specText({ name: "weekly", model: "orders" }) })
  store = join(dir, "state.sqlite")
  // A store from before the chain (version 4) with rows: the first command migrates and chains them.
  await Effect.runPromise(writeStoreAtVersion(store, 4))
  sqlite(
    store,
    [
      seedRow("2026-01-01T10:00:00.000Z", "evaluation", "agent", "bot-1", "orders", "allow", 1, "p1"),
      seedRow("2026-01-02T00:00:00.000Z", "evaluation", "human", null, "orders", "require_review", null, "p2"),
      seedRow("2026-01-03T05:30:00.000Z", "escalation", "agent", "bot-1", "customers", "require_review", 2, "p3"),
      seedRow("2026-01-04T00:00:00.000Z", "approval", "human", "alice", "orders", null, null, "p1"),
      seedRow("2026-01-05T00:00:00.000Z", "evaluation", "agent", "bot-2", "orders", "deny", 1, "p4"),
      seedRow("2026-01-05T01:00:00.000Z", "verification", "human", "alice", "*", null, null, "p1")
    ].join("\n")
  )
})

describe("pcli audit --verify (hash chain)", () => {
  it("chains pre-existing rows on migration, and appends extend the chain", async () => {
    const first = await json(["--verify"])
    expect(first).toMatchObject({ command: "audit_verify", intact: true, rows: 6, first_bad: null })
    const hashes = sqlite(store, "SELECT row_hash FROM ledger ORDER BY seq").trim().split("\n")
    expect(first.head_hash).toBe(hashes[5])
    const frozen = await runCli(["policy", "freeze", "--principal", "agent", "--state-path", store, "--principal-id", "ops"], { cwd: dir })
    expect(frozen.code, frozen.stderr).toBe(0)
    const after = await audit(["--verify"])
    expect(after.code).toBe(0)
    expect(after.stdout).toMatch(/^ledger chain intact: 7 row\(s\), head [0-9a-f]{64}\n$/)
    const head = sqlite(store, "SELECT row_hash FROM ledger ORDER BY seq DESC LIMIT 1").trim()
    expect(after.stdout).toContain(head)
    const shown = await runCli(["policy", "show", "--state-path", store, "--output", "json"], { cwd: dir })
    expect(JSON.parse(shown.stdout).ledger_head_hash).toBe(head)
  })

  const tampered = (name: string, edit: string) => {
    const copy = join(dir, `${name}.sqlite`)
    copyFileSync(store, copy)
    sqlite(copy, edit)
    return copy
  }

  it("an edited row is the first bad row, exit 1", async () => {
    const copy = tampered("edited", "UPDATE ledger SET reason = 'nothing to see' WHERE seq = 2")
    const r = await audit(["--verify", "--output", "json"], copy)
    expect(r.code).toBe(1)
    expect(JSON.parse(r.stdout)).toMatchObject({ intact: false, rows: 1, first_bad: { seq: 2 } })
    const text = await audit(["--verify"], copy)
    expect(text.stdout).toContain("ledger chain BROKEN at seq 2")
  })

  it("a deleted row breaks the chain at the next row; a deleted tail is found too", async () => {
    const copy = tampered("deleted", "DELETE FROM ledger WHERE seq = 2")
    const r = await audit(["--verify", "--output", "json"], copy)
    expect(r.code).toBe(1)
    expect(JSON.parse(r.stdout).first_bad).toMatchObject({ seq: 3, reason: expect.stringContaining("missing") })
    const tail = tampered("tail", "DELETE FROM ledger WHERE seq = (SELECT max(seq) FROM ledger)")
    const t = await audit(["--verify", "--output", "json"], tail)
    expect(t.code).toBe(1)
    expect(JSON.parse(t.stdout)).toMatchObject({ rows: 6, first_bad: { seq: 7, reason: expect.stringContaining("at the end") } })
  })

  it("a swapped pair (hashes moved with the rows) is detected", async () => {
    const swap = [
      "CREATE TEMP TABLE a AS SELECT * FROM ledger WHERE seq = 2;",
      "CREATE TEMP TABLE b AS SELECT * FROM ledger WHERE seq = 3;",
      "DELETE FROM ledger WHERE seq IN (2, 3);",
      "UPDATE temp.a SET seq = 3; UPDATE temp.b SET seq = 2;",
      "INSERT INTO ledger SELECT * FROM temp.b; INSERT INTO ledger SELECT * FROM temp.a;"
    ].join("\n")
    const copy = tampered("swapped", swap)
    const r = await audit(["--verify", "--output", "json"], copy)
    expect(r.code).toBe(1)
    expect(JSON.parse(r.stdout).first_bad).toMatchObject({ seq: 2 })
  })
})

describe("pcli audit list", () => {
  it("lists oldest first; text shows class(id) or unrecorded", async () => {
    const out = await json(["--since", "2025-12-31", "--actor", "bot-1"])
    expect(out.entries.map((e: { plan_id: string }) => e.plan_id)).toEqual(["p1", "p3"])
    const r = await audit([])
    expect(r.code).toBe(0)
    const [header, ...lines] = r.stdout.trim().split("\n")
    expect(header).toMatch(/^TIME +ACTOR +CAPABILITY +MODEL +EFFECT +RULE +PLAN +REASON$/)
    expect(lines[0]).toContain("agent(bot-1)")
    expect(lines[1]).toContain("unrecorded")
    expect(lines.map((l) => l.slice(0, 24))).toEqual([...lines.map((l) => l.slice(0, 24))].sort())
  })

  it("--actor skips id-less rows and counts them; --actor unrecorded lists them", async () => {
    const out = await json(["--actor", "bot-1"])
    expect(out.entries).toHaveLength(2)
    expect(out.unattributed_skipped).toBe(1)
    const text = await audit(["--actor", "bot-1"])
    expect(text.stdout).toContain("note: 1 decision(s) recorded without a principal id were skipped")
    const none = await json(["--actor", "unrecorded"])
    expect(none.entries.map((e: { plan_id: string }) => e.plan_id)).toEqual(["p2"])
    expect(none.unattributed_skipped).toBe(0)
    // The actor filter reads no environment variable.
    const env = await runCli(["audit", "--state-path", store, "--output", "json"], { cwd: dir, env: { PCLI_PRINCIPAL_ID: "bot-1" } })
    expect(JSON.parse(env.stdout).actor).toBeNull()
    const bad = await audit(["--actor", "Bad Id"])
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain("invalid-principal-id")
  })

  it("text is an aligned table: time, class(id), capability, model, effect, rule, short plan id, reason cut with …; JSON keeps both whole", async () => {
    const table = join(dir, "table.sqlite")
    await Effect.runPromise(writeStoreAtVersion(table, 4))
    const plan = "ab".repeat(32)
    const long = `needs review: ${"the change touches a contracted column ".repeat(3)}end`
    const insert = (ts: string, principal: string, id: string, capability: string, model: string, effect: string, rule: number | null, planId: string | null, reason: string) =>
      `INSERT INTO ledger (${cols}) VALUES (${[`${ts}|${planId ?? ""}|${model}`, "evaluation", ts, principal, id, "flag", capability, model, effect, rule, planId, reason].map(q).join(", ")});`
    sqlite(table, [insert("2026-02-01T00:00:00.000Z", "agent", "bot-1", "apply", "orders", "require_review", 3, plan, long), insert("2026-02-02T00:00:00.000Z", "human", "alice", "schema_change.additive", "customer_lifetime_value", "allow", null, "p9", "ok")].join("\n"))
    const r = await audit([], table)
    expect(r.code, r.stderr).toBe(0)
    const lines = r.stdout.trimEnd().split("\n")
    expect(lines).toHaveLength(3)
    const cells = lines.map((l) => l.split(/ {2,}/))
    expect(cells[0]).toEqual(["TIME", "ACTOR", "CAPABILITY", "MODEL", "EFFECT", "RULE", "PLAN", "REASON"])
    expect(cells[1]!.slice(0, 7)).toEqual(["2026-02-01T00:00:00.000Z", "agent(bot-1)", "apply", "orders", "require_review", "3", `${plan.slice(0, 12)}…`])
    expect(cells[1]![7]).toMatch(/^needs review: the change touches .*…$/)
    expect(cells[1]![7]!.length).toBeLessThan(long.length)
    expect(cells[2]).toEqual(["2026-02-02T00:00:00.000Z", "human(alice)", "schema_change.additive", "customer_lifetime_value", "allow", "-", "p9", "ok"])
    // Aligned: every column starts at the same offset on every line.
    const starts = (line: string) => [...line.matchAll(/(?:^| {2,})(\S)/g)].map((m) => m.index! + m[0].length - 1)
    expect(starts(lines[1]!)).toEqual(starts(lines[0]!))
    expect(starts(lines[2]!)).toEqual(starts(lines[0]!))
    const page = await audit(["--limit", "1"], table)
    expect(page.stdout.split("\n").slice(0, 2).map((l) => l.split(/ {2,}/)[0])).toEqual(["TIME", "2026-02-01T00:00:00.000Z"])
    const whole = await json([], table)
    expect(whole.entries.map((e: { plan_id: string; reason: string }) => [e.plan_id, e.reason])).toEqual([[plan, long], ["p9", "ok"]])
  })

  it("--since: a date is 00:00 UTC, an offset converts to UTC, N d/h count back, the future lists nothing", async () => {
    const plans = async (since: string) => (await json(["--since", since])).entries.map((e: { plan_id: string }) => e.plan_id)
    expect((await plans("2026-01-03")).slice(0, 2)).toEqual(["p3", "p1"])
    // One read of an offset both lists from it and reports it converted to UTC.
    const offset = await json(["--since", "2026-01-03T07:30:00+02:00"])
    expect(offset.entries[0].plan_id).toBe("p3")
    expect((await plans("2026-01-03T07:30:00.001+02:00"))[0]).toBe("p1")
    expect((await plans("2026-01-02T19:00:00-05:00"))[0]).toBe("p3")
    expect(offset.since).toBe("2026-01-03T05:30:00.000Z")
    expect(await plans("1d")).not.toContain("p1")
    expect(await plans("2000d")).toContain("p1")
    expect(await plans("72h")).not.toContain("p3")
    expect(await plans("2999-01-01")).toEqual([])
    for (const bad of ["yesterday", "2026-02-30", "2026-01-01T00:00:00", "7w", "-1d", "2026-01-01T25:00:00Z"]) {
      const r = await audit(["--since", bad])
      expect(r.code, bad).toBe(1)
      expect(r.stderr).toContain("invalid-since")
    }
  })

  it("--product filters on the product's output model", async () => {
    const out = await json(["--product", "weekly"])
    expect(out.model).toBe("orders")
    expect(out.entries.map((e: { plan_id: string }) => e.plan_id)).toEqual(["p1", "p2", "p1", "p4"])
    expect((await json(["--product", "weekly", "--actor", "alice"])).entries).toHaveLength(1)
  })

  it("--scorecard groups evaluations by principal, rule or scope; records never count", async () => {
    const byPrincipal = await json(["--scorecard"])
    expect(byPrincipal).toMatchObject({ command: "audit_scorecard", by: "principal", window: "all", window_start: null, evaluations: 4 })
    expect(byPrincipal.groups).toEqual([
      { key: "agent(bot-1)", evaluations: 2, allowed: 1, denied: 0, escalated: 1, acceptance_rate: 0.5, denial_rate: 0, escalation_rate: 0.5 },
      { key: "agent(bot-2)", evaluations: 1, allowed: 0, denied: 1, escalated: 0, acceptance_rate: 0, denial_rate: 1, escalation_rate: 0 },
      { key: "human(unrecorded)", evaluations: 1, allowed: 0, denied: 0, escalated: 1, acceptance_rate: 0, denial_rate: 0, escalation_rate: 1 }
    ])
    const byRule = await json(["--scorecard", "--by", "rule"])
    expect(byRule.groups.map((g: { key: string; evaluations: number }) => [g.key, g.evaluations])).toEqual([["default", 1], ["rule 1", 2], ["rule 2", 1]])
    const byScope = await json(["--scorecard", "--by", "scope"])
    expect(byScope.groups.map((g: { key: string; evaluations: number }) => [g.key, g.evaluations])).toEqual([["customers", 1], ["orders", 3]])
    const windowed = await json(["--scorecard", "--window", "2026-01-05"])
    expect(windowed).toMatchObject({ window_start: "2026-01-05T00:00:00.000Z", evaluations: 1 })
    expect((await json(["--scorecard", "--window", "1d"])).evaluations).toBe(0)
    const text = await audit(["--scorecard"])
    expect(text.stdout).toContain("agent(bot-1)  evaluations 2  accepted 50.0%  denied 0.0%  escalated 50.0%")
    const bad = await audit(["--scorecard", "--window", "soon"])
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain("invalid-since")
  })

  it("every flag conflict is a usage error (exit 2)", async () => {
    for (const args of [
      ["--for", "orders", "--product", "weekly"],
      ["--for", "orders", "--actor", "a"],
      ["--for", "orders", "--since", "1d"],
      ["--scorecard", "--product", "weekly"],
      ["--scorecard", "--actor", "a"],
      ["--scorecard", "--since", "1d"],
      ["--by", "rule"],
      ["--window", "7d"],
      ["--for", "orders", "--scorecard"],
      ["--verify", "--since", "1d"],
      ["--verify", "--for", "orders"]
    ]) {
      const r = await audit(args)
      expect(r.code, args.join(" ")).toBe(2)
    }
  })
})
