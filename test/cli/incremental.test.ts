import { describe, expect, it } from "vitest"
import { spawn, execFileSync } from "node:child_process"
import { cpSync, mkdirSync, readdirSync, writeFileSync } from "node:fs"
import { writeFile } from "node:fs/promises"
import { join } from "node:path"
import { makeProject, PCLI_BIN, runCli } from "../support/cli"

/** Runs statements on the project's embedded warehouse file between pcli runs; returns the last result's rows. */
const duck = async (cwd: string, ...statements: ReadonlyArray<string>): Promise<ReadonlyArray<ReadonlyArray<unknown>>> => {
  const { DuckDBInstance } = await import("@duckdb/node-api")
  const instance = await DuckDBInstance.create(join(cwd, ".pcli", "warehouse.duckdb"))
  try {
    const connection = await instance.connect()
    let rows: ReadonlyArray<ReadonlyArray<unknown>> = []
    for (const s of statements) rows = (await connection.runAndReadAll(s)).getRowsJS()
    connection.closeSync()
    return rows
  } finally {
    instance.closeSync()
  }
}

/** The physical table a model's view reads (decision 37): where its rows are written. */
const physicalOf = async (cwd: string, view: string) => {
  const rows = await duck(cwd, `SELECT sql FROM duckdb_views() WHERE schema_name = 's' AND view_name = '${view}'`)
  return /FROM (pcli_physical\.[a-z0-9_]+)/.exec(String(rows[0]?.[0]))![1]!
}

/** A marker row in each model table (none in an interval a rebuild would touch): a rebuild drops it. */
const markTables = async (cwd: string) =>
  duck(
    cwd,
    `INSERT INTO ${await physicalOf(cwd, "stg_events")} VALUES (-1, NULL, -1)`,
    `INSERT INTO ${await physicalOf(cwd, "daily")} VALUES (DATE '2024-01-02', -1, -1)`,
    `INSERT INTO ${await physicalOf(cwd, "one")} VALUES (-1)`,
    `INSERT INTO ${await physicalOf(cwd, "two")} VALUES (-1, 'marker')`
  )

const markers = async (cwd: string) =>
  Object.fromEntries(
    (
      await duck(
        cwd,
        `SELECT 'stg_events', count(*) FILTER (WHERE id = -1) FROM s.stg_events UNION ALL SELECT 'daily', count(*) FILTER (WHERE events = -1) FROM s.daily
         UNION ALL SELECT 'one', count(*) FILTER (WHERE id = -1) FROM s.one UNION ALL SELECT 'two', count(*) FILTER (WHERE id = -1) FROM s.two`
      )
    ).map((r) => [String(r[0]), Number(r[1])])
  )

const sidecar = (name: string, extra = "") =>
  `name = "${name}"\n${extra}\n[target]\ncatalog = "warehouse"\nschema = "s"\ntable = "${name}"\n`

/**
 * raw.events (a declared source) → stg_events (full_refresh) → daily (time_interval, day);
 * one → two, independent of the rest.
 */
const project = () => {
  const cwd = makeProject({
    "pcli.toml": `[adapter.local]\ntype = "embedded"\n`,
    "models/stg_events.sql": "SELECT id, day, amount FROM raw.events",
    "models/stg_events.toml": sidecar("stg_events", `[[sources]]\nschema = "raw"\ntable = "events"\n`),
    "models/daily.sql": "SELECT day, count(*) AS events, sum(amount) AS amount FROM s.stg_events WHERE day >= @start_date AND day < @end_date GROUP BY day",
    "models/daily.toml": sidecar(
      "daily",
      `[strategy]\ntype = "time_interval"\ntime_column = "day"\ngranularity = "day"\nfirst_partition = "2024-01-01"\n`
    ),
    "models/one.sql": "SELECT 1 AS id",
    "models/one.toml": sidecar("one"),
    "models/two.sql": "SELECT id, 'two' AS label FROM s.one",
    "models/two.toml": sidecar("two")
  })
  return cwd
}

const seedEvents = (cwd: string) => {
  mkdirSync(join(cwd, ".pcli"), { recursive: true })
  return duck(
    cwd,
    "CREATE SCHEMA raw",
    "CREATE TABLE raw.events (id INTEGER, day DATE, amount INTEGER)",
    "INSERT INTO raw.events VALUES (1, DATE '2024-01-01', 10), (2, DATE '2024-01-01', 5), (3, DATE '2024-01-02', 7), (4, DATE '2024-01-03', 1)"
  )
}

interface RunJson {
  readonly status: string
  readonly models_succeeded: number
  readonly models_unchanged: number
  readonly models: ReadonlyArray<{ readonly model_name: string; readonly status: string; readonly intervals_built?: number; readonly output_hash?: string }>
}

const run = async (cwd: string, ...extra: ReadonlyArray<string>) => {
  const r = await runCli(["run", "--output", "json", ...extra], { cwd })
  expect(r.code, r.stderr).toBe(0)
  const out = JSON.parse(r.stdout) as RunJson
  const status = Object.fromEntries(out.models.map((m) => [m.model_name, m.status]))
  return { out, status, stderr: r.stderr }
}

let seededAndBuilt: Promise<{ readonly dir: string; readonly first: Awaited<ReturnType<typeof run>> }> | undefined
/** A copy of project() seeded and built once for the file (no absolute path is stored: no content-addressed model), with that first run's report. */
const builtProject = async () => {
  seededAndBuilt ??= (async () => {
    const dir = project()
    await seedEvents(dir)
    return { dir, first: await run(dir) }
  })()
  const { dir, first } = await seededAndBuilt
  const cwd = makeProject()
  cpSync(dir, cwd, { recursive: true })
  return { cwd, first }
}

describe("incremental runs (binary, embedded DuckDB)", () => {
  it("a second run reports every model unchanged and touches no table; an edit rebuilds the model and its downstream only", async () => {
    const { cwd, first } = await builtProject()
    expect(first.status).toEqual({ daily: "success", one: "success", stg_events: "success", two: "success" })
    expect(first.out.models.find((m) => m.model_name === "daily")?.intervals_built).toBe(3)
    await markTables(cwd)

    const second = await run(cwd)
    expect(second.out.status).toBe("success")
    expect(second.status).toEqual({ daily: "unchanged", one: "unchanged", stg_events: "unchanged", two: "unchanged" })
    expect(second.out.models_unchanged).toBe(4)
    expect(second.out.models_succeeded).toBe(0)
    expect(await markers(cwd)).toEqual({ stg_events: 1, daily: 1, one: 1, two: 1 })

    writeFileSync(join(cwd, "models", "one.sql"), "SELECT 2 AS id")
    const edited = await run(cwd)
    expect(edited.status).toEqual({ daily: "unchanged", one: "success", stg_events: "unchanged", two: "success" })
    expect(await markers(cwd)).toEqual({ stg_events: 1, daily: 1, one: 0, two: 0 })
    expect(await duck(cwd, "SELECT id FROM s.two")).toEqual([[2]])
  })

  it("new source data rebuilds its dependents, and a new day builds one interval; --full-refresh rebuilds everything", async () => {
    const { cwd } = await builtProject()
    await duck(cwd, `INSERT INTO ${await physicalOf(cwd, "daily")} VALUES (DATE '2024-01-02', -1, -1)`)
    await duck(cwd, "INSERT INTO raw.events VALUES (5, DATE '2024-01-04', 3), (6, DATE '2024-01-04', 4)")

    const newDay = await run(cwd)
    expect(newDay.status).toEqual({ daily: "success", one: "unchanged", stg_events: "success", two: "unchanged" })
    expect(newDay.out.models.find((m) => m.model_name === "daily")?.intervals_built).toBe(1)
    expect(await duck(cwd, "SELECT day::VARCHAR, events, amount FROM s.daily ORDER BY day, events")).toEqual([
      ["2024-01-01", 2n, 15n],
      ["2024-01-02", -1n, -1n],
      ["2024-01-02", 1n, 7n],
      ["2024-01-03", 1n, 1n],
      ["2024-01-04", 2n, 7n]
    ])

    // A late change to one existing day rebuilds that day only (the marker day is left alone).
    await duck(cwd, "UPDATE raw.events SET amount = 100 WHERE id = 4")
    const late = await run(cwd)
    expect(late.out.models.find((m) => m.model_name === "daily")?.intervals_built).toBe(1)
    expect(await duck(cwd, "SELECT amount FROM s.daily WHERE day = DATE '2024-01-03'")).toEqual([[100n]])
    expect(await duck(cwd, "SELECT count(*) FROM s.daily WHERE events = -1")).toEqual([[1n]])

    const full = await run(cwd, "--full-refresh")
    expect(full.status).toEqual({ daily: "success", one: "success", stg_events: "success", two: "success" })
    expect(full.out.models.find((m) => m.model_name === "daily")?.intervals_built).toBe(4)
    expect(await duck(cwd, "SELECT count(*) FROM s.daily WHERE events = -1")).toEqual([[0n]])
    // And the next run is a no-op again.
    expect((await run(cwd)).out.models_unchanged).toBe(4)
  })

  it("content-addressed models reuse their bytes: no new file on an unchanged or a forced run", async () => {
    const dir = makeProject()
    expect((await runCli(["playground", "demo"], { cwd: dir })).code).toBe(0)
    const cwd = join(dir, "demo")
    const parquet = () => readdirSync(join(cwd, "artifacts"), { recursive: true }).map(String).filter((f) => f.endsWith(".parquet")).sort()
    const first = await run(cwd)
    const files = parquet()
    const second = await run(cwd)
    expect(second.out.models_unchanged).toBe(second.out.models.length)
    const forced = await run(cwd, "--full-refresh")
    const hash = (r: typeof first) => r.out.models.find((m) => m.model_name === "raw_orders")?.output_hash
    expect(hash(forced)).toBe(hash(first))
    expect(parquet()).toEqual(files)
  })

  it("off a terminal, text mode prints a line per model start and finish on stderr; JSON mode keeps stdout to the one object", async () => {
    const cwd = project()
    await seedEvents(cwd)
    const text = await runCli(["run"], { cwd })
    expect(text.code).toBe(0)
    expect(text.stderr).toMatch(/^\[\d\/4\] START stg_events \(full_refresh\)$/m)
    expect(text.stderr).toMatch(/^\[\d\/4\] OK stg_events \(full_refresh, 4 rows, \d+\.\d\d s\)$/m)
    expect(text.stderr).toMatch(/^\[\d\/4\] OK daily \(time_interval, 3 intervals, 3 rows, \d+\.\d\d s\)$/m)
    expect(text.stdout).toMatch(/^Run run-\S+: success \(4 built, 0 unchanged, 0 failed, 0 skipped\)$/m)
    const json = await runCli(["run", "--output", "json"], { cwd })
    expect(json.code).toBe(0)
    expect(JSON.parse(json.stdout).models_unchanged).toBe(4)
    expect(json.stderr).toMatch(/^\[\d\/4\] UNCHANGED daily \(time_interval, \d+\.\d\d s\)$/m)
  })
})

describe("Ctrl-C and history (binary)", () => {
  it("SIGINT stops after the in-flight model, records the run as interrupted, exits 130; history lists it", async () => {
    const fifo = join(makeProject(), "gate.csv")
    execFileSync("mkfifo", [fifo])
    const cwd = makeProject({
      "pcli.toml": `[adapter.local]\ntype = "embedded"\n`,
      // Blocks until the test writes the fifo: in flight for as long as the test needs.
      "models/blocker.sql": `SELECT * FROM read_csv('${fifo}', header = true, columns = {'id': 'INTEGER'})`,
      "models/blocker.toml": sidecar("blocker"),
      "models/after.sql": "SELECT id FROM s.blocker",
      "models/after.toml": sidecar("after")
    })
    const env: Record<string, string> = {}
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("PCLI_")) env[k] = v
    const child = spawn(process.execPath, [PCLI_BIN, "run", "--output", "json"], { cwd, env, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d))
    const waitFor = (text: string) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (stderr.includes(text)) {
            child.stderr.off("data", onData)
            resolve()
          }
        }
        const onData = (d: string) => {
          stderr += d
          check()
        }
        child.stderr.on("data", onData)
        check()
      })
    child.stderr.setEncoding("utf8")
    const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)))
    await waitFor("START blocker")
    child.kill("SIGINT")
    await waitFor("interrupt: finishing the models in flight")
    child.stderr.on("data", (d: string) => (stderr += d))
    await writeFile(fifo, "id\n1\n2\n")
    expect(await exited).toBe(130)
    expect(stderr).toContain("error[interrupted]: run ")
    const out = JSON.parse(stdout)
    expect(out.status).toBe("interrupted")
    const byName = Object.fromEntries(out.models.map((m: { model_name: string }) => [m.model_name, m]))
    expect(byName.blocker.status).toBe("success")
    expect(byName.after.status).toBe("skipped")
    expect(byName.after.skipped_because).toBe("the run was interrupted before this model started")

    // The store is consistent: the run is recorded as interrupted, and the next run picks up where it stopped.
    const next = await run(cwd)
    expect(next.status).toEqual({ after: "success", blocker: "unchanged" })

    const list = await runCli(["history", "--output", "json"], { cwd })
    expect(list.code).toBe(0)
    const runs = JSON.parse(list.stdout).runs
    expect(runs.map((r: { status: string }) => r.status)).toEqual(["success", "interrupted"])
    expect(runs[1]).toMatchObject({ run_id: out.run_id, models_total: 2, models_built: 1, models_skipped: 1, retries: 0 })
    expect(runs[0]).toMatchObject({ models_built: 1, models_unchanged: 1 })

    const one = await runCli(["history", out.run_id, "--output", "json"], { cwd })
    expect(one.code).toBe(0)
    const detail = JSON.parse(one.stdout)
    expect(detail.run.status).toBe("interrupted")
    expect(detail.models.map((m: { model_name: string; status: string }) => [m.model_name, m.status])).toEqual([
      ["blocker", "success"],
      ["after", "skipped"]
    ])
    expect(detail.models[0].started_at).toMatch(/^\d{4}-\d\d-\d\dT/)

    const forModel = await runCli(["history", "--model", "after", "--last", "1"], { cwd })
    expect(forModel.code).toBe(0)
    expect(forModel.stdout.trim().split("\n")).toHaveLength(1)
    expect(forModel.stdout).toContain(`${runs[0].run_id}  success`)
    expect(forModel.stdout).toContain("after: success")

    const missing = await runCli(["history", "run-nosuch"], { cwd })
    expect(missing.code).toBe(1)
    expect(missing.stderr).toBe('error[run-not-found]: run "run-nosuch" not found in the state store\n')
  })

  it("history on a project with no runs says so and writes nothing", async () => {
    const cwd = makeProject({ "pcli.toml": `[adapter.local]\ntype = "embedded"\n` })
    const r = await runCli(["history"], { cwd })
    expect(r.code).toBe(0)
    expect(r.stdout).toBe("No runs recorded.\n")
    expect(readdirSync(cwd)).toEqual(["pcli.toml"])
  })
})
