import { execFileSync } from "node:child_process"
import { existsSync } from "node:fs"
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

describe("freshness: checked by pcli test against what is built, recorded, failing it at severity error", () => {
  const cwd = makeProject({
    "pcli.toml": `[adapter.local]\ntype = "embedded"\n`,
    ...model("fresh_events", "SELECT now()::TIMESTAMP AS loaded_at", `max_lag_seconds = 3600\ntime_column = "loaded_at"`),
    ...model("stale_events", "SELECT TIMESTAMP '2020-01-01 00:00:00' AS loaded_at", `max_lag_seconds = 60\ntime_column = "loaded_at"`),
    ...model("stale_warned", "SELECT TIMESTAMP '2020-01-01 00:00:00' AS loaded_at", `max_lag_seconds = 60\ntime_column = "loaded_at"\nseverity = "warning"`)
  })
  const test = async (select: string, output: "json" | "text" = "json") => {
    const r = await runCli(["test", "--select", select, ...(output === "json" ? ["--output", "json"] : [])], { cwd })
    return { ...r, out: output === "json" ? JSON.parse(r.stdout) : undefined }
  }

  beforeAll(async () => {
    const r = await runCli(["run"], { cwd })
    expect(r.code, r.stderr).toBe(0)
  })

  it("a fresh model passes, its check in the JSON (no run: run_id is null)", async () => {
    const r = await test("fresh_events")
    expect(r.code, r.stderr).toBe(0)
    expect(r.out).toMatchObject({ command: "test", models: [], tests: 0, freshness_failed: 0, freshness_not_built: [] })
    expect(r.out.freshness).toEqual([expect.objectContaining({ model: "fresh_events", status: "fresh", severity: "error", max_lag_seconds: 3600, run_id: null })])
    const text = await test("fresh_events", "text")
    expect(text.stdout).toMatch(/^FRESH +fresh_events freshness\(loaded_at within 3600s, error\): newest loaded_at \S+ \S+ is \d+s old \(within 3600s\)$/m)
    expect(text.stdout).toContain("1 freshness check: 1 fresh, 0 failed, 0 warned, 0 models not built")
  })

  it("a stale model at severity error fails pcli test and is listed", async () => {
    const r = await test("stale_events")
    expect(r.code).toBe(1)
    expect(r.stderr).toBe("error[tests-failed]: 1 error-severity freshness check(s) not fresh\n")
    expect(r.out.freshness_failed).toBe(1)
    expect(r.out.freshness).toEqual([expect.objectContaining({ model: "stale_events", status: "stale", severity: "error", newest: "2020-01-01 00:00:00", run_id: null })])
    const text = await test("stale_events", "text")
    expect(text.code).toBe(1)
    expect(text.stdout).toMatch(/^FAIL +stale_events freshness\(loaded_at within 60s, error\): newest loaded_at 2020-01-01 00:00:00 is \d+s old \(over 60s\)$/m)
  })

  it("a stale model at severity warning is a warning: pcli test exits 0", async () => {
    const r = await test("stale_warned")
    expect(r.code, r.stderr).toBe(0)
    expect(r.out.freshness_failed).toBe(0)
    expect(r.out.freshness).toEqual([expect.objectContaining({ model: "stale_warned", status: "stale", severity: "warning" })])
    const text = await test("stale_warned", "text")
    expect(text.code).toBe(0)
    expect(text.stdout).toMatch(/^WARN +stale_warned freshness\(loaded_at within 60s, warning\): newest loaded_at 2020-01-01 00:00:00 is \d+s old \(over 60s\)$/m)
    expect(text.stdout).toContain("1 freshness check: 0 fresh, 0 failed, 1 warned, 0 models not built")
  })

  it("the checks pcli test made are recorded, and brief reports them", async () => {
    // `run` recorded one row per model with its run id; each `pcli test` above added rows without one.
    const rows = execFileSync("sqlite3", [join(cwd, "models/.pcli-state.sqlite"), "SELECT model, status, severity FROM freshness_checks WHERE run_id IS NULL GROUP BY model, status, severity ORDER BY model"], { encoding: "utf8" })
    expect(rows.trim().split("\n")).toEqual(["fresh_events|fresh|error", "stale_events|stale|error", "stale_warned|stale|warning"])
    const json = await runCli(["brief", "--since", "24h", "--output", "json"], { cwd })
    expect(json.code, json.stderr).toBe(0)
    const checks = JSON.parse(json.stdout).freshness.checks as Array<Record<string, unknown>>
    // The latest check of each model is the one pcli test made (no run id).
    expect(checks.map((c) => [c["model"], c["status"], c["run_id"]])).toEqual([
      ["fresh_events", "fresh", null],
      ["stale_events", "stale", null],
      ["stale_warned", "stale", null]
    ])
  })

  it("a model not built is not checked, and says so; a project never built gets no state store from pcli test", async () => {
    const never = makeProject({
      "pcli.toml": `[adapter.local]\ntype = "embedded"\n`,
      ...model("later", "SELECT now()::TIMESTAMP AS loaded_at", `max_lag_seconds = 60\ntime_column = "loaded_at"\nseverity = "warning"`)
    })
    const r = await runCli(["test", "--output", "json"], { cwd: never })
    expect(r.code).toBe(1)
    expect(r.stderr).toBe("error[tests-failed]: 1 model(s) not built\n")
    const out = JSON.parse(r.stdout)
    expect(out).toMatchObject({ freshness_failed: 0, freshness_not_built: ["later"] })
    expect(out.freshness).toBeUndefined()
    const text = await runCli(["test"], { cwd: never })
    expect(text.stdout).toContain("NOT BUILT  later: freshness not checked\n")
    expect(text.stdout).toContain("0 freshness checks: 0 fresh, 0 failed, 0 warned, 1 model not built")
    // Nothing was checked, so nothing was recorded: the store is not created by looking.
    expect(existsSync(join(never, "models/.pcli-state.sqlite"))).toBe(false)
  })
})
