import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import { createHash } from "node:crypto"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { CURRENT_SCHEMA_VERSION } from "../../src/services/StateStore/migrations"
import { makeProject, runCli } from "../support/cli"
import { writeStoreAtVersion } from "../support/stateStore"

const sqlite = (path: string, sql: string) => execFileSync("sqlite3", [path, sql], { encoding: "utf8" })
const q = (v: string | number | null) => (v === null ? "NULL" : typeof v === "number" ? String(v) : `'${v}'`)
const cols = "decision_ref, kind, timestamp, principal, principal_id, principal_id_source, capability, model, effect, rule_id, plan_id, reason"
let n = 0
const row = (ts: string, kind: string, principal: string, capability: string | null, model: string, effect: string, rule: number | null) =>
  `INSERT INTO ledger (${cols}) VALUES (${[`${ts}|p${++n}|${model}`, kind, ts, principal, "bot", "flag", capability, model, effect, rule, `p${n}`, "seeded"].map(q).join(", ")});`

const policy = (bronzeApply: string, goldApply: string) => `[policy]
version = 1
default_agent_effect = "require_review"

[[policy.rules]]
principal = "agent"
capability = "apply"
effect = "${bronzeApply}"
scope = { layer = "bronze" }

[[policy.rules]]
principal = "agent"
capability = "apply"
effect = "${goldApply}"
scope = { layer = "gold" }
`
const sidecar = (name: string, layer: string) => `name = "${name}"\n[target]\ncatalog = "w"\nschema = "${layer}"\ntable = "${name}"\n[tags]\nlayer = "${layer}"\n`

let dir = ""
let store = ""
const replay = (args: ReadonlyArray<string>) => runCli(["policy", "replay", "--state-path", store, ...args], { cwd: dir })
const digest = () => createHash("sha256").update(readFileSync(store)).digest("hex")

beforeAll(async () => {
  dir = makeProject({
    "pcli.toml": policy("require_review", "require_review"),
    "models/raw_events.sql": "SELECT 1 AS id",
    "models/raw_events.toml": sidecar("raw_events", "bronze"),
    "models/gold_daily.sql": "SELECT 1 AS id",
    "models/gold_daily.toml": sidecar("gold_daily", "gold"),
    "same.toml": policy("require_review", "require_review"),
    "loosened.toml": policy("allow", "require_review"),
    "tightened.toml": policy("require_review", "deny")
  })
  store = join(dir, "state.sqlite")
  await Effect.runPromise(writeStoreAtVersion(store, CURRENT_SCHEMA_VERSION))
  sqlite(
    store,
    [
      row("2026-01-01T00:00:00.000Z", "evaluation", "agent", "apply", "raw_events", "require_review", 0),
      row("2026-01-02T00:00:00.000Z", "evaluation", "agent", "apply", "raw_events", "require_review", 0),
      row("2026-01-03T00:00:00.000Z", "evaluation", "agent", "apply", "raw_events", "deny", 0),
      row("2026-01-04T00:00:00.000Z", "evaluation", "agent", "apply", "gold_daily", "require_review", 1),
      row("2026-01-05T00:00:00.000Z", "evaluation", "human", "apply", "gold_daily", "allow", null),
      row("2026-01-06T00:00:00.000Z", "freeze", "human", null, "any", "deny", null),
      row("2026-01-07T00:00:00.000Z", "approval", "human", null, "gold_daily", "allow", null)
    ].join("\n")
  )
})

describe("pcli policy replay", () => {
  it("an unchanged policy reports zero flips, exit 0 with --fail-on-loosen", async () => {
    const r = await replay(["--config", "same.toml", "--fail-on-loosen", "--output", "json"])
    expect(r.code, r.stderr).toBe(0)
    expect(JSON.parse(r.stdout)).toMatchObject({ command: "policy_replay", evaluations: 5, unchanged: 5, tightened: 0, loosened: 0, skipped: 0, flips: [] })
    const text = await replay(["--config", "same.toml"])
    expect(text.stdout).toContain("no decision would change")
  })

  it("a loosened rule reports its flips; --fail-on-loosen exits 1 after printing the report; the store is untouched", async () => {
    const before = digest()
    const out = await replay(["--config", "loosened.toml", "--output", "json"])
    expect(out.code, out.stderr).toBe(0)
    const report = JSON.parse(out.stdout)
    // Freeze and approval rows are not evaluations; the three raw_events decisions loosen (rule 0 → rule 0, now allow).
    expect(report).toMatchObject({ evaluations: 5, loosened: 3, tightened: 0, unchanged: 2 })
    expect(report.flips).toEqual([
      {
        direction: "loosened",
        principal: "agent",
        capability: "apply",
        model: "raw_events",
        before: { effect: "require_review", rule_id: 0 },
        after: { effect: "allow", rule_id: 0 },
        decisions: 3,
        first_decision_ref: "2026-01-01T00:00:00.000Z|p1|raw_events",
        last_decision_ref: "2026-01-03T00:00:00.000Z|p3|raw_events"
      }
    ])
    const gated = await replay(["--config", "loosened.toml", "--fail-on-loosen"])
    expect(gated.code).toBe(1)
    expect(gated.stdout).toMatch(/^replayed 5 recorded evaluation\(s\) under .*loosened\.toml: 3 loosened, 0 tightened, 2 unchanged\nLOOSENED {2}agent apply raw_events: require_review \(rule 0\) → allow \(rule 0\) {2}×3/)
    expect(gated.stderr).toContain("policy-replay-loosens")
    expect(digest()).toBe(before)
  })

  it("a tightening passes the loosen gate; --since narrows the replay", async () => {
    const t = await replay(["--config", "tightened.toml", "--fail-on-loosen", "--output", "json"])
    expect(t.code, t.stderr).toBe(0)
    expect(JSON.parse(t.stdout)).toMatchObject({ tightened: 1, loosened: 0, flips: [{ direction: "tightened", model: "gold_daily", after: { effect: "deny", rule_id: 1 } }] })
    const since = await replay(["--config", "loosened.toml", "--since", "2026-01-02T01:00:00+01:00", "--output", "json"])
    expect(JSON.parse(since.stdout)).toMatchObject({ since: "2026-01-02T00:00:00.000Z", evaluations: 4, loosened: 2 })
  })

  it("bad input: no --config is a usage error (2); a missing file or a malformed --since exits 1", async () => {
    expect((await replay([])).code).toBe(2)
    const missing = await replay(["--config", "nope.toml"])
    expect(missing.code).toBe(1)
    const since = await replay(["--config", "same.toml", "--since", "yesterday"])
    expect(since.code).toBe(1)
    expect(since.stderr).toContain("invalid-since")
    writeFileSync(join(dir, "broken.toml"), "[policy\n")
    expect((await replay(["--config", "broken.toml"])).code).toBe(1)
  })
})
