import { describe, expect, it } from "vitest"
import { existsSync, readdirSync } from "node:fs"
import { join } from "node:path"
import { makeProject, runCli } from "../support/cli"

const model = (name: string, schema: string, sql: string, extra = "") => ({
  [`models/${name}.sql`]: sql,
  [`models/${name}.toml`]: `name = "${name}"\n[target]\ncatalog = "warehouse"\nschema = "${schema}"\ntable = "${name}"\n${extra}`
})

describe("pcli compile / run / playground (binary)", () => {
  it("playground → compile → run: the README's main job, green end to end", async () => {
    const dir = makeProject()
    const created = await runCli(["playground", "demo"], { cwd: dir })
    expect(created.code).toBe(0)
    expect(created.stdout).toContain("pcli run --config demo/pcli.toml")
    const compile = await runCli(["compile", "--config", "demo/pcli.toml", "--output", "json"], { cwd: dir })
    expect(compile.code).toBe(0)
    const compiled = JSON.parse(compile.stdout)
    expect(compiled.command).toBe("compile")
    expect(compiled.model_count).toBe(6)
    expect(compiled.execution_order.indexOf("raw_orders")).toBeLessThan(compiled.execution_order.indexOf("stg_orders"))
    const run = await runCli(["run", "--config", "demo/pcli.toml", "--output", "json"], { cwd: dir })
    expect(run.code).toBe(0)
    const out = JSON.parse(run.stdout)
    expect(out.status).toBe("success")
    expect(out.models_succeeded).toBe(6)
    // JSON mode draws no progress line.
    expect(run.stderr).toBe("")
    // The content-addressed model landed as a Parquet file named by its hash, and the run was recorded.
    const parquet = readdirSync(join(dir, "demo"), { recursive: true }).map(String).filter((f) => f.endsWith(".parquet"))
    expect(parquet.length).toBeGreaterThan(0)
    expect(existsSync(join(dir, "demo", "models", ".pcli-state.sqlite"))).toBe(true)
    expect(existsSync(join(dir, "demo", ".pcli", "warehouse.duckdb"))).toBe(true)
  })

  it("a failed model skips its downstream, the rest runs, and the exit code is 1 (decisions item 23)", async () => {
    const cwd = makeProject({
      "pcli.toml": `[adapter.local]\ntype = "embedded"\n`,
      ...model("a_ok", "s", "SELECT 1 AS id"),
      ...model("b_bad", "s", "SELECT CAST('not a number' AS INTEGER) AS id"),
      ...model("c_after_bad", "s", "SELECT id FROM s.b_bad"),
      ...model("d_after_ok", "s", "SELECT id FROM s.a_ok")
    })
    const r = await runCli(["run", "--output", "json"], { cwd })
    expect(r.code).toBe(1)
    const out = JSON.parse(r.stdout)
    expect(out.status).toBe("partial_failure")
    const status = Object.fromEntries(out.models.map((m: { model_name: string; status: string }) => [m.model_name, m.status]))
    expect(status).toEqual({ a_ok: "success", b_bad: "failed", c_after_bad: "skipped", d_after_ok: "success" })
  })

  it("every model failing exits 1; text output names the failure", async () => {
    const cwd = makeProject({ ...model("only_bad", "s", "SELECT CAST('x' AS INTEGER) AS id") })
    const r = await runCli(["run"], { cwd })
    expect(r.code).toBe(1)
    expect(r.stdout).toContain("only_bad")
  })

  it("compile errors are one line with a stable code: cycle and unknown reference", async () => {
    const cycle = makeProject({ ...model("x", "s", "SELECT * FROM s.y"), ...model("y", "s", "SELECT * FROM s.x") })
    const c = await runCli(["compile"], { cwd: cycle })
    expect(c.code).toBe(1)
    expect(c.stderr.trim()).toMatch(/^error\[dependency-cycle\]: .*x -> y -> x|^error\[dependency-cycle\]: .*y -> x -> y/)
    const syntax = makeProject({ ...model("broken", "s", "SELEC 1") })
    const s = await runCli(["compile", "--output", "json"], { cwd: syntax })
    expect(s.code).toBe(1)
    const body = JSON.parse(s.stdout)
    expect(body.error.code).toBe("model-sql-invalid")
    expect(body.error.message).toContain("broken")
  })

  it("--from without --to is a usage error (exit 2); playground refuses a non-empty directory", async () => {
    const cwd = makeProject({ ...model("m", "s", "SELECT 1 AS id") })
    const r = await runCli(["run", "--from", "2026-01-01"], { cwd })
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/--from and --to go together/)
    const p = await runCli(["playground", "models"], { cwd })
    expect(p.code).toBe(1)
    expect(p.stderr).toMatch(/^error\[playground-not-empty\]/)
  })
})
