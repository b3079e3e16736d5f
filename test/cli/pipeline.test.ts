import { describe, expect, it } from "vitest"
import { existsSync, mkdirSync, readdirSync } from "node:fs"
import { join } from "node:path"
import { makeProject, runCli } from "../support/cli"
import { holdDuckDbFile, release } from "../warehouse/lockHolder"

/** Tables in an embedded warehouse file (none when the file does not exist). */
const tables = async (file: string): Promise<ReadonlyArray<string>> => {
  if (!existsSync(file)) return []
  const { DuckDBInstance } = await import("@duckdb/node-api")
  const instance = await DuckDBInstance.create(file)
  try {
    const connection = await instance.connect()
    const reader = await connection.runAndReadAll("SELECT table_schema || '.' || table_name FROM information_schema.tables ORDER BY 1")
    connection.closeSync()
    return reader.getRowsJS().map((r) => String(r[0]))
  } finally {
    instance.closeSync()
  }
}

const model = (name: string, schema: string, sql: string, extra = "") => ({
  [`models/${name}.sql`]: sql,
  [`models/${name}.toml`]: `name = "${name}"\n[target]\ncatalog = "warehouse"\nschema = "${schema}"\ntable = "${name}"\n${extra}`
})

describe("pcli compile / run / playground (binary)", () => {
  it("playground → compile → run: the README's main job, green end to end", async () => {
    const dir = makeProject()
    const created = await runCli(["playground", "demo"], { cwd: dir })
    expect(created.code).toBe(0)
    expect(created.stdout).toContain("   $ cd demo\n   $ pcli run\n")
    const compile = await runCli(["compile", "--config", "demo/pcli.toml", "--output", "json"], { cwd: dir })
    expect(compile.code).toBe(0)
    const compiled = JSON.parse(compile.stdout)
    expect(compiled.command).toBe("compile")
    expect(compiled.model_count).toBe(7)
    // The playground classifies stg_customers.email as pii and masks nothing: compile warns (W004), exit 0.
    expect(compiled.findings.map((f: { code: string; subject: string }) => [f.code, f.subject])).toEqual([["W004", "stg_customers.email"]])
    expect(compiled.execution_order.indexOf("raw_orders")).toBeLessThan(compiled.execution_order.indexOf("stg_orders"))
    const run = await runCli(["run", "--config", "demo/pcli.toml", "--output", "json"], { cwd: dir })
    expect(run.code).toBe(0)
    const out = JSON.parse(run.stdout)
    expect(out.status).toBe("success")
    expect(out.models_succeeded).toBe(7)
    // JSON mode keeps stdout to the one object; progress, a line per model start and finish, goes to stderr.
    expect(run.stderr.trim().split("\n").every((l) => /^\[\d\/7\] (START|OK) /.test(l))).toBe(true)
    // Each model's OK line carries its START line's number, and the seven numbers are 1..7.
    const numbers = (word: string) =>
      new Map([...run.stderr.matchAll(new RegExp(`^\\[(\\d)/7\\] ${word} (\\S+)`, "gm"))].map((m) => [m[2]!, m[1]!] as const))
    expect(numbers("OK")).toEqual(numbers("START"))
    expect([...numbers("START").values()].sort()).toEqual(["1", "2", "3", "4", "5", "6", "7"])
    // The content-addressed model landed as a Parquet file named by its hash, and the run was recorded.
    const parquet = readdirSync(join(dir, "demo"), { recursive: true }).map(String).filter((f) => f.endsWith(".parquet"))
    expect(parquet.length).toBeGreaterThan(0)
    expect(existsSync(join(dir, "demo", "models", ".pcli-state.sqlite"))).toBe(true)
    expect(existsSync(join(dir, "demo", ".pcli", "warehouse.duckdb"))).toBe(true)
  })

  it("a failed model skips its downstream, the rest runs, and a partial run exits 1 listing each model's status", async () => {
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
    const skipped = out.models.find((m: { model_name: string }) => m.model_name === "c_after_bad")
    expect(skipped.failed_upstream).toBe("b_bad")
    expect(skipped.skipped_because).toBe("upstream b_bad failed")
  })

  it("--model naming an unknown model fails with model-not-found before any work (exit 1)", async () => {
    const cwd = makeProject({ ...model("m", "s", "SELECT 1 AS id") })
    const r = await runCli(["run", "--model", "m", "--model", "nosuch", "--output", "json"], { cwd })
    expect(r.code).toBe(1)
    expect(r.stderr).toBe('error[model-not-found]: model "nosuch" not found in the project\n')
    expect(JSON.parse(r.stdout).error.code).toBe("model-not-found")
    expect(await tables(join(cwd, ".pcli", "warehouse.duckdb"))).toEqual([])
  })

  it("a bad, reversed or pointless --from/--to window is refused before any model is built", async () => {
    const cwd = makeProject({
      ...model("plain", "s", "SELECT 1 AS id"),
      ...model(
        "daily",
        "s",
        "SELECT d::TIMESTAMP AS day FROM range(TIMESTAMP '2024-01-01', TIMESTAMP '2024-01-06', INTERVAL 1 DAY) r(d) WHERE d >= @start_date AND d < @end_date",
        '[strategy]\ntype = "time_interval"\ntime_column = "day"\ngranularity = "day"\n'
      )
    })
    // Malformed values (decisions.md item 2): exit 1 with their code; a window on a model without partitions is usage, exit 2.
    const garbage = await runCli(["run", "--from", "garbage", "--to", "x"], { cwd })
    expect(garbage.code).toBe(1)
    expect(garbage.stderr).toBe(
      'error[invalid-partition-window]: invalid partition window --from "garbage" --to "x": --from "garbage" is not a day partition key (YYYY-MM-DD) of model daily\n'
    )
    const reversed = await runCli(["run", "--from", "2024-01-05", "--to", "2024-01-01"], { cwd })
    expect(reversed.code).toBe(1)
    expect(reversed.stderr).toMatch(/^error\[invalid-partition-window\]: .*--to is before --from\n$/)
    const pointless = await runCli(["run", "--model", "plain", "--from", "2024-01-01", "--to", "2024-01-02"], { cwd })
    expect(pointless.code).toBe(2)
    expect(pointless.stderr).toMatch(/^error\[window-needs-partitioned-model\]: .*none of the selected models is partitioned \(time_interval\): plain\n$/)
    expect(await tables(join(cwd, ".pcli", "warehouse.duckdb"))).toEqual([])
  })

  it("a warehouse file locked by another process is retried, each retry on stderr, then warehouse-locked", async () => {
    const cwd = makeProject({ ...model("m", "s", "SELECT 1 AS id") })
    const file = join(cwd, ".pcli", "warehouse.duckdb")
    mkdirSync(join(cwd, ".pcli"))
    const holder = await holdDuckDbFile(file)
    try {
      const r = await runCli(["run"], { cwd })
      expect(r.code).toBe(1)
      const lines = r.stderr.trim().split("\n")
      expect(lines.at(-1)).toBe(
        `error[warehouse-locked]: the embedded warehouse ${file} is locked by another process (PID ${holder.pid}); gave up after 5 attempts`
      )
      expect(lines.filter((l) => /retrying \(\d\/5\) in [\d.]+s: embedded warehouse /.test(l))).toHaveLength(4)
    } finally {
      await release(holder)
    }
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

  it("compile lists every broken model with its file and line; a DROP model is explained, not DuckDB's serializer error", async () => {
    const cwd = makeProject({
      ...model("a_drop", "s", "DROP TABLE s.old"),
      ...model("b_ok", "s", "SELECT 1 AS id"),
      ...model("c_syntax", "s", "SELECT 1\nFROM s.b_ok\nWHERE id = = 1")
    })
    const r = await runCli(["compile"], { cwd })
    expect(r.code).toBe(1)
    expect(r.stderr).toBe("error[model-sql-invalid]: 2 models failed to compile: a_drop, c_syntax\n")
    const drop = makeProject({ ...model("cleanup", "s", "-- tidy up\nDROP TABLE s.old") })
    const d = await runCli(["compile"], { cwd: drop })
    expect(d.stderr).toBe(
      `error[model-sql-invalid]: 1 model failed to compile: ${join(drop, "models", "cleanup.sql")}: a model must be a single SELECT query (found DROP …)\n`
    )
    const one = makeProject({ ...model("c_syntax", "s", "SELECT 1\nFROM t\nWHERE id = = 1") })
    const o = await runCli(["compile"], { cwd: one })
    expect(o.stderr).toMatch(/^error\[model-sql-invalid\]: 1 model failed to compile: .*c_syntax\.sql:3: syntax error at or near "="\n$/)
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

describe("where the project and the store are (binary)", () => {
  it("run in a directory with neither pcli.toml nor models/ is config-not-found and writes nothing", async () => {
    const cwd = makeProject()
    const r = await runCli(["run"], { cwd })
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/^error\[config-not-found\]: /)
    expect(readdirSync(cwd)).toEqual([])
  })

  it("--state-path into a missing directory, or naming a directory, is refused with a plain message", async () => {
    const cwd = makeProject({ "models/a.sql": "SELECT 1 AS id", "models/a.toml": `name = "a"\n[target]\ncatalog = "w"\nschema = "s"\ntable = "a"\n` })
    const missing = await runCli(["run", "--state-path", "nosuch/dir/state.sqlite"], { cwd })
    expect(missing.code).toBe(1)
    expect(missing.stderr).toMatch(/^error\[state-store-io\]: .*does not exist; create it first/)
    expect(existsSync(join(cwd, "nosuch"))).toBe(false)
    const dir = await runCli(["run", "--state-path", "models"], { cwd })
    expect(dir.code).toBe(1)
    expect(dir.stderr).toMatch(/^error\[state-store-io\]: .*is a directory/)
    expect(dir.stderr).not.toContain("disk I/O error")
  })
})
