import { describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { closeSync, mkdirSync, openSync, writeFileSync, writeSync } from "node:fs"
import { join } from "node:path"
import { fileReadingStep, makeMemoryCap, memoryLimitSteps, readsFiles } from "../../src/services/Warehouse/memoryCap"
import { StatementFailed } from "../../src/services/Warehouse/Warehouse"
import { makeProject, runCli } from "../support/cli"

/** A CSV of `rows` rows (about 90 bytes each): large enough that DuckDB's reader pins its 30.5 MiB buffer. */
const writeCsv = (file: string, rows: number) => {
  const fd = openSync(file, "w")
  writeSync(fd, "id,name,amount,note\n")
  for (let start = 0; start < rows; start += 10_000) {
    const lines: Array<string> = []
    for (let i = start; i < Math.min(rows, start + 10_000); i++) lines.push(`${i},name_${i},${(i * 7919) % 100_000},a note for row ${i} with some padding text`)
    writeSync(fd, `${lines.join("\n")}\n`)
  }
  closeSync(fd)
}

/** Four models reading the same CSV: as many as a run's lanes, so they scan it side by side. */
const csvProject = (adapter: string) => {
  const dir = makeProject({ "pcli.toml": `[adapter.local]\ntype = "embedded"\n${adapter}` })
  const csv = join(dir, "big.csv")
  writeCsv(csv, 400_000)
  mkdirSync(join(dir, "models"))
  for (const name of ["c1", "c2", "c3", "c4"]) {
    writeFileSync(join(dir, "models", `${name}.sql`), `SELECT * FROM read_csv('${csv}', header = true)`)
    writeFileSync(join(dir, "models", `${name}.toml`), `name = "${name}"\n[target]\ncatalog = "warehouse"\nschema = "raw"\ntable = "${name}"\n`)
  }
  return dir
}

interface RunJson {
  readonly status: string
  readonly run_id: string
  readonly models: ReadonlyArray<{ model_name: string; status: string; attempts: number; rows_affected?: number; error?: { message: string } }>
}

describe("the embedded warehouse's memory cap (binary)", () => {
  it("models reading a large CSV on every lane succeed under the default cap", async () => {
    const dir = csvProject("")
    const r = await runCli(["run", "--output", "json"], { cwd: dir })
    const run = JSON.parse(r.stdout) as RunJson
    expect(r.code, r.stderr).toBe(0)
    expect(run.status).toBe("success")
    expect(run.models.map((m) => [m.model_name, m.status, m.rows_affected])).toEqual([
      ["c1", "success", 400_000],
      ["c2", "success", 400_000],
      ["c3", "success", 400_000],
      ["c4", "success", 400_000]
    ])
  })

  it("a model that runs out of memory under the default cap is built again once it is raised; the retry is on stderr and in history", async () => {
    const dir = makeProject({
      "pcli.toml": `[adapter.local]\ntype = "embedded"\n`,
      // A list aggregate holds its list in memory (32 MB of BIGINTs): more than the starting cap.
      "models/big.sql": "SELECT count(*) AS n, max(len(l)) AS longest FROM (SELECT list(range) AS l FROM range(4000000))",
      "models/big.toml": `name = "big"\n[target]\ncatalog = "warehouse"\nschema = "main"\ntable = "big"\n`
    })
    const r = await runCli(["run", "--output", "json"], { cwd: dir })
    const run = JSON.parse(r.stdout) as RunJson
    expect(r.code, r.stderr).toBe(0)
    expect(run.models.map((m) => [m.model_name, m.status])).toEqual([["big", "success"]])
    const attempts = run.models[0]!.attempts
    expect(attempts).toBeGreaterThanOrEqual(2)
    expect(r.stderr).toMatch(/retrying with memory_limit = 64MB: model big: Out of Memory Error/)
    const history = await runCli(["history", "--last", "1", "--output", "json"], { cwd: dir })
    const listed = JSON.parse(history.stdout) as { runs: ReadonlyArray<{ run_id: string; retries: number }> }
    expect(listed.runs.map((x) => [x.run_id, x.retries])).toEqual([[run.run_id, attempts - 1]])
  })

  it("a CSV-reading and a Parquet-reading model run beside joins and windows over them; every model builds", async () => {
    const dir = makeProject({ "pcli.toml": `[adapter.local]\ntype = "embedded"\n` })
    writeCsv(join(dir, "orders.csv"), 400_000)
    const { DuckDBInstance } = await import("@duckdb/node-api")
    const duck = await DuckDBInstance.create(":memory:")
    const connection = await duck.connect()
    await connection.run(`COPY (SELECT range AS id, range % 7 AS k, 'p' || range AS label FROM range(300000)) TO '${join(dir, "items.parquet")}' (FORMAT parquet)`)
    connection.closeSync()
    duck.closeSync()
    mkdirSync(join(dir, "models"))
    const models: Record<string, string> = {
      orders: `SELECT * FROM read_csv('${join(dir, "orders.csv")}', header = true)`,
      items: `SELECT * FROM read_parquet('${join(dir, "items.parquet")}')`,
      joined: "SELECT o.id, o.amount, i.k FROM raw.orders o JOIN raw.items i ON i.id = o.id",
      ranked: "SELECT id, k, row_number() OVER (PARTITION BY k ORDER BY amount DESC, id) AS r FROM raw.joined",
      totals: "SELECT k, sum(amount) AS total FROM raw.joined WHERE id IN (SELECT id FROM raw.ranked WHERE r <= 1000) GROUP BY k"
    }
    for (const [name, sql] of Object.entries(models)) {
      writeFileSync(join(dir, "models", `${name}.sql`), sql)
      writeFileSync(join(dir, "models", `${name}.toml`), `name = "${name}"\n[target]\ncatalog = "warehouse"\nschema = "raw"\ntable = "${name}"\n`)
    }
    const r = await runCli(["run", "--output", "json"], { cwd: dir })
    expect(r.code, r.stderr).toBe(0)
    const run = JSON.parse(r.stdout) as RunJson
    expect(Object.fromEntries(run.models.map((m) => [m.model_name, [m.status, m.rows_affected]]))).toEqual({
      orders: ["success", 400_000],
      items: ["success", 300_000],
      joined: ["success", 300_000],
      ranked: ["success", 300_000],
      totals: ["success", 7]
    })
  })

  it("a memory_limit set in pcli.toml stays fixed, even at the default's starting cap: the models fail with DuckDB's Out of Memory error and what to change", async () => {
    const dir = csvProject(`memory_limit = "32MB"\n`)
    const r = await runCli(["run", "--output", "json"], { cwd: dir })
    const run = JSON.parse(r.stdout) as RunJson
    expect(r.code).toBe(1)
    expect(r.stderr).not.toContain("retrying")
    // No CSV scan fits under 32MB (its buffer alone is 30.5 MiB).
    expect(run.models.map((m) => m.status)).toEqual(["failed", "failed", "failed", "failed"])
    for (const m of run.models) {
      expect(m.attempts).toBe(1)
      expect(m.error!.message).toMatch(/^Out of Memory Error: .*; memory_limit = 32MB is set in pcli\.toml: raise it, or remove it/)
    }
  })
})

describe("readsFiles", () => {
  it("finds DuckDB's file readers, called or by a quoted path, and nothing else", () => {
    expect(readsFiles("SELECT * FROM read_csv('a.csv', header = true)")).toBe(true)
    expect(readsFiles("select * from READ_PARQUET ('s3://b/*.parquet')")).toBe(true)
    expect(readsFiles("SELECT * FROM read_json_auto('x.json')")).toBe(true)
    expect(readsFiles("SELECT o.* FROM 'orders.csv' o")).toBe(true)
    expect(readsFiles("SELECT * FROM t JOIN 'dim.parquet' d USING (id)")).toBe(true)
    // A false positive (a reader's name inside a string) only raises the cap early.
    expect(readsFiles("SELECT unread_csv(x), spread_csv FROM raw.orders")).toBe(false)
    expect(readsFiles("SELECT * FROM raw.orders WHERE note = 'from here'")).toBe(false)
  })
})

describe("makeMemoryCap", () => {
  const capWith = (refuse: (sql: string) => boolean) => {
    const applied: Array<string> = []
    const cap = makeMemoryCap((sql) =>
      refuse(sql) ? Effect.fail(new StatementFailed({ detail: "refused", transient: false })) : Effect.sync(() => void applied.push(sql))
    )
    return Effect.map(cap, (c) => ({ cap: c, applied }))
  }

  it.effect("builds failing under the same step raise it once; each step up to DuckDB's default, then no further", () =>
    Effect.gen(function* () {
      const { cap, applied } = yield* capWith(() => false)
      const step = yield* cap.step
      const raised = yield* Effect.all([cap.raiseFrom(step), cap.raiseFrom(step), cap.raiseFrom(step)], { concurrency: "unbounded" })
      expect(raised).toEqual([Option.some("64MB"), Option.some("64MB"), Option.some("64MB")])
      expect(applied).toEqual(["SET GLOBAL memory_limit = '64MB'"])
      expect(yield* cap.raiseFrom(yield* cap.step)).toEqual(Option.some("256MB"))
      expect(yield* cap.raiseFrom(yield* cap.step)).toEqual(Option.some("1GB"))
      expect(yield* cap.raiseFrom(yield* cap.step)).toEqual(Option.some(undefined))
      expect(yield* cap.raiseFrom(yield* cap.step)).toEqual(Option.none())
      expect(applied).toEqual(["SET GLOBAL memory_limit = '64MB'", "SET GLOBAL memory_limit = '256MB'", "SET GLOBAL memory_limit = '1GB'", "RESET GLOBAL memory_limit"])
      expect(yield* cap.step).toBe(memoryLimitSteps.length - 1)
    })
  )

  it.effect("raising to a step already reached changes nothing", () =>
    Effect.gen(function* () {
      const { cap, applied } = yield* capWith(() => false)
      expect(yield* cap.raiseTo(1)).toEqual(Option.some("64MB"))
      expect(yield* cap.raiseTo(1)).toEqual(Option.some("64MB"))
      expect(yield* cap.raiseTo(0)).toEqual(Option.some("64MB"))
      expect(applied).toEqual(["SET GLOBAL memory_limit = '64MB'"])
    })
  )

  it.effect("a cap DuckDB refuses to raise stays where it was", () =>
    Effect.gen(function* () {
      const { cap, applied } = yield* capWith((sql) => sql.includes("64MB"))
      expect(yield* cap.raiseFrom(0)).toEqual(Option.none())
      expect(yield* cap.step).toBe(0)
      expect(applied).toEqual([])
    })
  )

  it.effect("a hold raises the cap while its build runs; the cap falls back to the floor when the last hold ends", () =>
    Effect.gen(function* () {
      const { cap, applied } = yield* capWith(() => false)
      const seen: Array<number> = []
      const inner = cap.holding(fileReadingStep, Effect.sync(() => seen.push(applied.length)))
      yield* cap.holding(fileReadingStep, inner)
      expect(applied).toEqual(["SET GLOBAL memory_limit = '256MB'", "SET GLOBAL memory_limit = '32MB'"])
      expect(seen).toEqual([1])
      // A floor raised while a build holds more stays when the hold ends.
      yield* cap.holding(fileReadingStep, cap.raiseFrom(0))
      expect(applied.slice(2)).toEqual(["SET GLOBAL memory_limit = '256MB'", "SET GLOBAL memory_limit = '64MB'"])
      expect(yield* cap.step).toBe(1)
    })
  )

  it.effect("the first Out of Memory at a step asks for the next one and leaves the floor; the second raises the floor", () =>
    Effect.gen(function* () {
      const { cap, applied } = yield* capWith(() => false)
      expect(yield* cap.outOfMemoryAt(0)).toEqual(Option.some(1))
      expect(yield* cap.step).toBe(0)
      expect(applied).toEqual([])
      expect(yield* cap.outOfMemoryAt(0)).toEqual(Option.some(1))
      expect(yield* cap.step).toBe(1)
      expect(applied).toEqual(["SET GLOBAL memory_limit = '64MB'"])
      // A build that started under the old floor builds again at the new one.
      expect(yield* cap.outOfMemoryAt(0)).toEqual(Option.some(1))
      expect(yield* cap.outOfMemoryAt(memoryLimitSteps.length - 1)).toEqual(Option.none())
    })
  )

  it.effect("Out of Memory errors rarer than one in 100 builds begun stay one-offs; the floor rises once they reach it", () =>
    Effect.gen(function* () {
      const { cap, applied } = yield* capWith(() => false)
      yield* Effect.repeatN(cap.began, 349)
      // 350 builds begun: the second and the third at 32MB each retry holding 64MB, the floor stays.
      for (let strike = 1; strike <= 3; strike++) {
        expect(yield* cap.outOfMemoryAt(0)).toEqual(Option.some(1))
        expect(yield* cap.step).toBe(0)
      }
      expect(applied).toEqual([])
      // The fourth is more than one in 100: the models need more, the floor rises.
      expect(yield* cap.outOfMemoryAt(0)).toEqual(Option.some(1))
      expect(yield* cap.step).toBe(1)
      expect(applied).toEqual(["SET GLOBAL memory_limit = '64MB'"])
      // Counted per step: the first at 64MB is a one-off again.
      expect(yield* cap.outOfMemoryAt(1)).toEqual(Option.some(2))
      expect(yield* cap.step).toBe(1)
    })
  )

  it.effect("a hold ends even when its build fails; a lowering DuckDB refuses is tried again when the next hold ends", () =>
    Effect.gen(function* () {
      let refuseLowering = true
      const { cap, applied } = yield* capWith((sql) => refuseLowering && sql.includes("32MB"))
      const failed = yield* Effect.either(cap.holding(fileReadingStep, Effect.fail("build failed")))
      expect(failed._tag).toBe("Left")
      expect(applied).toEqual(["SET GLOBAL memory_limit = '256MB'"])
      refuseLowering = false
      yield* cap.holding(fileReadingStep, Effect.void)
      expect(applied).toEqual(["SET GLOBAL memory_limit = '256MB'", "SET GLOBAL memory_limit = '32MB'"])
    })
  )
})
