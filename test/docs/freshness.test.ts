import { execFileSync } from "node:child_process"
import { join } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { makeProject, runCli } from "../support/cli"

const model = (name: string, sql: string, freshness: string) => ({
  [`models/${name}.sql`]: sql,
  [`models/${name}.toml`]: `name = "${name}"\n\n[target]\ncatalog = "warehouse"\nschema = "s"\ntable = "${name}"\n\n[freshness]\n${freshness}\n`
})

describe("freshness: checked after a model builds, recorded, reported by brief", () => {
  const cwd = makeProject({
    "pcli.toml": `[adapter.local]\ntype = "embedded"\n`,
    ...model("fresh_events", "SELECT now()::TIMESTAMP AS loaded_at", `max_lag_seconds = 3600\ntime_column = "loaded_at"`),
    ...model("old_events", "SELECT TIMESTAMP '2020-01-01 00:00:00' AS loaded_at", `max_lag_seconds = 60\ntime_column = "loaded_at"\nseverity = "warning"`),
    ...model("no_events", "SELECT CAST(NULL AS TIMESTAMP) AS loaded_at", `expected_lag_seconds = 60\ntime_column = "loaded_at"`),
    ...model("bad_column", "SELECT 1 AS id", `max_lag_seconds = 60\ntime_column = "loaded_at"`)
  })
  let run: { code: number; out: { run_id: string; freshness: Array<Record<string, unknown>> } }

  beforeAll(async () => {
    const r = await runCli(["run", "--output", "json"], { cwd })
    run = { code: r.code, out: JSON.parse(r.stdout) }
  })

  it("a run checks each built model that declares [freshness]; a stale table is reported, not a failed run", () => {
    expect(run.code).toBe(0)
    const by = Object.fromEntries(run.out.freshness.map((c) => [c["model"], c]))
    expect(Object.keys(by).sort()).toEqual(["bad_column", "fresh_events", "no_events", "old_events"])
    expect(by["fresh_events"]).toMatchObject({ status: "fresh", severity: "error", max_lag_seconds: 3600, run_id: run.out.run_id, product: null })
    expect(by["old_events"]).toMatchObject({ status: "stale", severity: "warning", newest: "2020-01-01 00:00:00" })
    expect(by["old_events"]!["lag_seconds"]).toBeGreaterThan(60)
    expect(by["no_events"]).toMatchObject({ status: "empty", max_lag_seconds: 60, newest: null })
    // A column that is not there is named, not a bare binder error.
    expect(by["bad_column"]).toMatchObject({ status: "error" })
    expect(String(by["bad_column"]!["detail"])).toMatch(/^freshness of bad_column\.loaded_at: /)
  })

  it("the checks are rows of the state store's freshness_checks table", () => {
    const rows = execFileSync("sqlite3", [join(cwd, "models/.pcli-state.sqlite"), "SELECT model, status FROM freshness_checks ORDER BY model"], { encoding: "utf8" })
    expect(rows.trim().split("\n")).toEqual(["bad_column|error", "fresh_events|fresh", "no_events|empty", "old_events|stale"])
  })

  it("brief reports them instead of 'unavailable', as JSON and as text", async () => {
    const json = await runCli(["brief", "--since", "24h", "--output", "json"], { cwd })
    expect(json.code).toBe(0)
    const freshness = JSON.parse(json.stdout).freshness
    expect(freshness.availability).toBe("available")
    expect(freshness.checks.map((c: Record<string, unknown>) => [c["model"], c["status"]])).toEqual([
      ["bad_column", "error"],
      ["fresh_events", "fresh"],
      ["no_events", "empty"],
      ["old_events", "stale"]
    ])
    const text = await runCli(["brief", "--since", "24h"], { cwd })
    expect(text.stdout).toMatch(/- old_events stale at \S+: newest loaded_at 2020-01-01 00:00:00 is \d+s old \(over 60s\)/)
  })

  it("a project that never checked freshness says so (no_data), not unavailable", async () => {
    const other = makeProject({ "pcli.toml": `[adapter.local]\ntype = "embedded"\n`, "models/a.sql": "SELECT 1 AS id", "models/a.toml": `name = "a"\n\n[target]\ncatalog = "w"\nschema = "s"\ntable = "a"\n` })
    expect((await runCli(["run"], { cwd: other })).code).toBe(0)
    const out = JSON.parse((await runCli(["brief", "--since", "24h", "--output", "json"], { cwd: other })).stdout)
    expect(out.freshness).toEqual({ availability: "no_data", note: expect.stringMatching(/no freshness checks/), checks: [] })
  })
})
