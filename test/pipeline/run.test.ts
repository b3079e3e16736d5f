import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { RunRecord } from "../../src/schemas/pipeline"
import { runExitCode, runOutput } from "../../src/services/Runner/output"
import { type ProgressEvent, runProject } from "../../src/services/Runner/run"
import { RunStore } from "../../src/services/Runner/RunStore"
import { Warehouse } from "../../src/services/Warehouse/Warehouse"
import { target, writeProject } from "./fixtures"
import { captureWarnings, compileRoot, countingWarehouse, flakyWarehouse, query, runtimeLayer } from "./harness"

const fast = { maxRetries: 3, baseDelayMillis: 1 }

describe("run", () => {
  it.live("full refresh in layer order; containment skips the failed model's downstream only", () => {
    const root = writeProject({
      src: { sql: "SELECT range AS id FROM range(5)", toml: target("raw", "src") },
      bad: { sql: "SELECT id, 1 / 0 AS x, error('boom') AS y FROM raw.src", toml: target("staging", "bad") },
      good: { sql: "SELECT id * 2 AS id FROM raw.src", toml: target("staging", "good") },
      after_bad: { sql: "SELECT * FROM staging.bad", toml: target("mart", "after_bad") },
      after_good: { sql: "SELECT count(*) AS n FROM staging.good", toml: target("mart", "after_good") },
      after_after_bad: { sql: "SELECT * FROM mart.after_bad", toml: target("mart", "after_after_bad") }
    })
    return Effect.gen(function* () {
      const project = yield* compileRoot(root)
      const events: Array<ProgressEvent> = []
      const run = yield* runProject(project, {
        projectRoot: root,
        retry: fast,
        onProgress: (e) => Effect.sync(() => events.push(e))
      })
      const byName = Object.fromEntries(run.models.map((m) => [m.model_name, m]))
      expect(run.status).toBe("partial_failure")
      expect(byName["src"]!.status).toBe("success")
      expect(byName["good"]!.status).toBe("success")
      expect(byName["after_good"]!.status).toBe("success")
      expect(byName["bad"]!.status).toBe("failed")
      expect(byName["bad"]!.error_class).toBe("permanent")
      expect(byName["bad"]!.attempts).toBe(1)
      expect(byName["after_bad"]!.status).toBe("skipped")
      // A skipped model names the failed model at the root, even through a skipped intermediate.
      expect(byName["after_bad"]!.failed_upstream).toBe("bad")
      expect(byName["after_after_bad"]!.status).toBe("skipped")
      expect(byName["after_after_bad"]!.failed_upstream).toBe("bad")
      expect(byName["after_after_bad"]!.error_message).toBe("upstream bad failed")
      expect(byName["good"]!.failed_upstream).toBeNull()
      expect(yield* query("SELECT n FROM mart.after_good")).toEqual([[5n]])
      expect(events.filter((e) => e.kind === "skipped").map((e) => e.model)).toEqual(["after_bad", "after_after_bad"])
      expect(events.at(-1)!.done).toBe(6)
      expect(events.every((e) => e.total === 6)).toBe(true)
      // The output lists each model's status, skipped ones with their failed upstream; a partial run exits 1.
      const out = runOutput(run)
      expect(out.models.map((m) => [m.model_name, m.status, m.failed_upstream])).toEqual([
        ["src", "success", undefined],
        ["bad", "failed", undefined],
        ["good", "success", undefined],
        ["after_bad", "skipped", "bad"],
        ["after_good", "success", undefined],
        ["after_after_bad", "skipped", "bad"]
      ])
      expect(runExitCode(out.status)).toBe(1)
      expect(Schema.is(RunRecord)(run)).toBe(true)
      // The run is recorded whole: reading it back gives the same record.
      const stored = yield* Effect.flatMap(RunStore, (s) => s.getRun(run.run_id))
      expect(stored!.status).toBe("partial_failure")
      expect(stored).toEqual(run)
      expect(run.run_id).toMatch(/^run-\d{8}-\d{6}-\d{3}$/)
    }).pipe(Effect.provide(runtimeLayer(root)))
  })

  it.live("a failed full refresh leaves the previous table intact", () => {
    const root = writeProject({ t: { sql: "SELECT 1 AS id", toml: target("main", "t") } })
    return Effect.gen(function* () {
      yield* runProject(yield* compileRoot(root), { projectRoot: root, retry: fast })
      fs.writeFileSync(path.join(root, "models", "t.sql"), "SELECT 2 AS id, error('late failure') AS e")
      const run = yield* runProject(yield* compileRoot(root), { projectRoot: root, retry: fast })
      expect(run.status).toBe("failure")
      expect(run.models[0]!.error_message).toContain("late failure")
      expect(yield* query("SELECT * FROM main.t")).toEqual([[1]])
      expect(yield* query("SELECT count(*) FROM information_schema.tables WHERE table_name LIKE '__pcli_stage%'")).toEqual([[0n]])
    }).pipe(Effect.provide(runtimeLayer(root)))
  })

  it.live("a model whose data test fails leaves its previous table as it was, whole or by time interval", () => {
    const uniqueId = '[[tests]]\ntype = "unique"\ncolumn = "id"\n'
    const interval = '[strategy]\ntype = "time_interval"\ntime_column = "day"\ngranularity = "day"\n'
    const days = "range(TIMESTAMP '2024-01-01', TIMESTAMP '2024-01-04', INTERVAL 1 DAY) r(d) WHERE d >= @start_date AND d < @end_date"
    const root = writeProject({
      whole: { sql: "SELECT range AS id FROM range(3)", toml: target("main", "whole") + uniqueId },
      daily: { sql: `SELECT d::TIMESTAMP AS day, 1 AS id FROM ${days}`, toml: target("main", "daily") + interval + uniqueId.replace("id", "day") }
    })
    return Effect.gen(function* () {
      const first = yield* runProject(yield* compileRoot(root), { projectRoot: root, retry: fast })
      expect(first.status).toBe("success")
      expect(first.models.map((m) => [m.model_name, m.rows_affected])).toEqual([["daily", 3], ["whole", 3]])
      fs.writeFileSync(path.join(root, "models", "whole.sql"), "SELECT range % 2 AS id FROM range(5)")
      fs.writeFileSync(path.join(root, "models", "daily.sql"), `SELECT TIMESTAMP '2024-01-01' AS day, 2 AS id FROM ${days}`)
      const run = yield* runProject(yield* compileRoot(root), { projectRoot: root, retry: fast })
      expect(run.models.map((m) => [m.model_name, m.status, m.error_code])).toEqual([
        ["daily", "failed", "data-test-failed"],
        ["whole", "failed", "data-test-failed"]
      ])
      expect(yield* query("SELECT list(id ORDER BY id) FROM main.whole")).toEqual([[[0n, 1n, 2n]]])
      expect(yield* query("SELECT count(DISTINCT day), sum(id) FROM main.daily")).toEqual([[3n, 3n]])
      expect(yield* query("SELECT count(*) FROM information_schema.tables WHERE table_name LIKE '__pcli_stage%'")).toEqual([[0n]])
    }).pipe(Effect.provide(runtimeLayer(root)))
  })

  it.live("a test that cannot run fails its model with its own error, whole or incremental, and leaves the tables as they were", () => {
    const badTest = '[[tests]]\ntype = "not_null"\ncolumn = "id"\n\n[[tests]]\ntype = "expression"\nexpression = "no_such_column > 0"\n'
    const root = writeProject({
      whole: { sql: "SELECT range AS id FROM range(3)", toml: target("main", "whole") },
      events: {
        sql: "SELECT range AS id, TIMESTAMP '2024-01-01' + INTERVAL (range) DAY AS ts FROM range(3)",
        toml: target("main", "events") + '[strategy]\ntype = "incremental"\ntimestamp_column = "ts"\n'
      }
    })
    return Effect.gen(function* () {
      expect((yield* runProject(yield* compileRoot(root), { projectRoot: root, retry: fast })).status).toBe("success")
      for (const name of ["whole", "events"]) fs.appendFileSync(path.join(root, "models", `${name}.toml`), badTest)
      fs.writeFileSync(path.join(root, "models", "events.sql"), "SELECT range AS id, TIMESTAMP '2024-01-01' + INTERVAL (range) DAY AS ts FROM range(5)")
      const run = yield* runProject(yield* compileRoot(root), { projectRoot: root, retry: fast })
      expect(run.models).toHaveLength(2)
      for (const m of run.models) {
        expect([m.model_name, m.status, m.error_code, m.attempts]).toEqual([m.model_name, "failed", "statement-failed", 1])
        expect(m.error_message).toMatch(/no_such_column/)
      }
      expect(yield* query("SELECT count(*) FROM main.whole")).toEqual([[3n]])
      expect(yield* query("SELECT count(*) FROM main.events")).toEqual([[3n]])
    }).pipe(Effect.provide(runtimeLayer(root)))
  })

  it.live("incremental appends only rows past the watermark", () => {
    const root = writeProject({
      src: { sql: "SELECT * FROM main.feed", toml: target("main", "src_copy", '[[sources]]\nschema = "main"\ntable = "feed"') },
      events: {
        sql: "SELECT * FROM main.src_copy",
        toml: target("main", "events") + '[strategy]\ntype = "incremental"\ntimestamp_column = "ts"\n'
      }
    })
    return Effect.gen(function* () {
      yield* query("CREATE TABLE main.feed AS SELECT range AS id, TIMESTAMP '2024-01-01' + INTERVAL (range) DAY AS ts FROM range(3)")
      const project = yield* compileRoot(root)
      const first = yield* runProject(project, { projectRoot: root, retry: fast })
      expect(first.models.find((m) => m.model_name === "events")!.rows_affected).toBe(3)
      yield* query("INSERT INTO main.feed SELECT range AS id, TIMESTAMP '2024-01-01' + INTERVAL (range) DAY FROM range(3, 5)")
      const second = yield* runProject(project, { projectRoot: root, retry: fast })
      expect(second.models.find((m) => m.model_name === "events")!.rows_affected).toBe(2)
      expect(yield* query("SELECT count(*), count(DISTINCT id) FROM main.events")).toEqual([[5n, 5n]])
    }).pipe(Effect.provide(runtimeLayer(root)))
  })

  it.live("time_interval deletes and re-inserts only the partitions of the window", () => {
    const root = writeProject({
      daily: {
        sql: "SELECT d::TIMESTAMP AS day, (SELECT v FROM main.factor) AS v FROM range(TIMESTAMP '2024-01-01', TIMESTAMP '2024-01-06', INTERVAL 1 DAY) r(d) WHERE d >= @start_date AND d < @end_date",
        toml:
          target("main", "daily", '[[sources]]\nschema = "main"\ntable = "factor"') +
          '[strategy]\ntype = "time_interval"\ntime_column = "day"\ngranularity = "day"\n'
      }
    })
    return Effect.gen(function* () {
      yield* query("CREATE TABLE main.factor AS SELECT 1 AS v")
      const project = yield* compileRoot(root)
      yield* runProject(project, { projectRoot: root, retry: fast })
      expect(yield* query("SELECT count(*), sum(v) FROM main.daily")).toEqual([[5n, 5n]])
      yield* query("UPDATE main.factor SET v = 10")
      const run = yield* runProject(project, { projectRoot: root, retry: fast, partition: { from: "2024-01-02", to: "2024-01-03" } })
      expect(run.models[0]!.rows_affected).toBe(2)
      expect(run.partition_from).toBe("2024-01-02")
      expect(yield* query("SELECT strftime(day, '%Y-%m-%d'), v FROM main.daily ORDER BY day")).toEqual([
        ["2024-01-01", 1],
        ["2024-01-02", 10],
        ["2024-01-03", 10],
        ["2024-01-04", 1],
        ["2024-01-05", 1]
      ])
      const bad = yield* Effect.flip(
        runProject(project, { projectRoot: root, retry: fast, partition: { from: "2024-1-2", to: "2024-01-03" } })
      )
      expect(bad.code).toBe("invalid-partition-window")
    }).pipe(Effect.provide(runtimeLayer(root)))
  })

  it.live("transient failures are retried, each retry announced as a WARN log; the model succeeds after the faults", () => {
    const root = writeProject({ t: { sql: "SELECT 42 AS answer", toml: target("main", "t") } })
    const faulty = flakyWarehouse(2, (sql) => sql.startsWith("CREATE OR REPLACE TABLE"))
    const logs = captureWarnings()
    return Effect.gen(function* () {
      const run = yield* runProject(yield* compileRoot(root), { projectRoot: root, retry: fast })
      expect(run.status).toBe("success")
      expect(run.models[0]!.attempts).toBe(3)
      expect(yield* query("SELECT answer FROM main.t")).toEqual([[42]])
      expect(logs.lines).toHaveLength(2)
      expect(logs.lines[0]).toMatch(/^retrying \(2\/4\) in \d+(\.\d+)?s: model t: IO Error: Could not set lock on file$/)
      expect(logs.lines[1]).toMatch(/^retrying \(3\/4\) in \d+(\.\d+)?s: model t: /)
    }).pipe(Effect.provide(Layer.provideMerge(faulty, runtimeLayer(root))), Effect.provide(logs.layer))
  })

  it.live("transient failures beyond the retry budget fail the model as transient", () => {
    const root = writeProject({ t: { sql: "SELECT 1 AS x", toml: target("main", "t") } })
    const faulty = flakyWarehouse(10, (sql) => sql.startsWith("CREATE OR REPLACE TABLE"))
    return Effect.gen(function* () {
      const run = yield* runProject(yield* compileRoot(root), { projectRoot: root, retry: { maxRetries: 2, baseDelayMillis: 1 } })
      expect(run.status).toBe("failure")
      expect(run.models[0]!.attempts).toBe(3)
      expect(run.models[0]!.error_class).toBe("transient")
      expect(run.models[0]!.error_code).toBe("statement-failed")
    }).pipe(Effect.provide(Layer.provideMerge(faulty, runtimeLayer(root))))
  })

  it.live("a failing error test or contract publishes nothing; a warning test only warns", () => {
    const root = writeProject({
      dupes: {
        sql: "SELECT 1 AS id UNION ALL SELECT 1",
        toml: target("main", "dupes") + '[[tests]]\ntype = "unique"\ncolumn = "id"\n'
      },
      warned: {
        sql: "SELECT 1 AS id, NULL::VARCHAR AS name",
        toml: target("main", "warned") + '[[tests]]\ntype = "not_null"\ncolumn = "name"\nseverity = "warning"\n'
      },
      typed: {
        sql: "SELECT 'x' AS id",
        contract: '[[columns]]\nname = "id"\ntype = "Int32"\nnullable = false\n[rules]\nrequired = ["id"]\n'
      },
      nulls: {
        sql: "SELECT NULL::INTEGER AS id",
        contract: '[[columns]]\nname = "id"\ntype = "INTEGER"\nnullable = false\n'
      },
      ok: {
        sql: "SELECT 1 AS id, 'a' AS kind, 5 AS n",
        toml:
          target("main", "ok") +
          '[[tests]]\ntype = "composite"\nkind = "unique"\ncolumns = ["id", "kind"]\n' +
          '[[tests]]\ntype = "accepted_values"\ncolumn = "kind"\nvalues = ["a", "b"]\n' +
          '[[tests]]\ntype = "expression"\nexpression = "n > 0"\n' +
          '[[tests]]\ntype = "row_count_range"\nmin = 1\nmax = 1\n',
        contract: '[[columns]]\nname = "id"\ntype = "Int32"\nnullable = false\n'
      }
    })
    return Effect.gen(function* () {
      const run = yield* runProject(yield* compileRoot(root), { projectRoot: root, retry: fast })
      const byName = Object.fromEntries(run.models.map((m) => [m.model_name, m]))
      expect(byName["dupes"]!.error_code).toBe("data-test-failed")
      expect(byName["dupes"]!.error_message).toContain("unique(id)")
      expect(byName["typed"]!.error_code).toBe("contract-violation")
      expect(byName["nulls"]!.error_code).toBe("contract-violation")
      expect(byName["warned"]!.status).toBe("success")
      expect(byName["warned"]!.warnings[0]).toContain("not_null(name)")
      expect(byName["ok"]!.status).toBe("success")
      const tables = yield* query("SELECT table_name FROM information_schema.tables WHERE table_schema <> 'pcli_physical' ORDER BY 1")
      expect(tables.map((r) => r[0])).toEqual(["ok", "warned"])
    }).pipe(Effect.provide(runtimeLayer(root)))
  })

  it.live("content_addressed on a remote warehouse fails with a typed error", () => {
    const root = writeProject({
      ca: { sql: "SELECT 1 AS x", toml: target("main", "ca") + '[strategy]\ntype = "content_addressed"\nstorage_prefix = "artifacts"\n' }
    })
    const remote = Layer.effect(
      Warehouse,
      Effect.map(Warehouse, (inner) => ({ ...inner, kind: "remote" as const, execute: (s: string) => inner.execute(s.replace(/"warehouse"\./g, "")) }))
    )
    return Effect.gen(function* () {
      const run = yield* runProject(yield* compileRoot(root), { projectRoot: root, retry: fast })
      expect(run.models[0]!.error_code).toBe("content-addressed-needs-embedded")
    }).pipe(Effect.provide(Layer.provideMerge(remote, runtimeLayer(root))), Effect.provide(NodeContext.layer))
  })
})
