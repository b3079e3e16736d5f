import { DuckDBInstance } from "@duckdb/node-api"
import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { readRecord } from "../../src/services/Governance/record"
import { layer as embeddedLayer } from "../../src/services/Warehouse/embedded"
import { startReadOnlyWorker, takeReadOnlyWorker } from "../../src/services/Warehouse/readOnlyClient"
import { READ_ONLY_WORKER_FILE } from "../../src/services/Warehouse/readOnlyProtocol"
import { Warehouse, type WarehouseService } from "../../src/services/Warehouse/Warehouse"
import { holdDuckDbFile, release } from "./lockHolder"

// The witness read of `audit --verify` on the bin's worker (readOnlyWorker.ts, built to dist/ by `npm run build`)
// must read exactly what the same READ_ONLY open reads on the main thread through @duckdb/node-api.
const dist = path.resolve(__dirname, "..", "..", "dist")

const makeFile = async () => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "pcli-ro-worker-")), "warehouse.duckdb")
  const instance = await DuckDBInstance.create(file)
  const connection = await instance.connect()
  await connection.run(
    "CREATE SCHEMA pcli; CREATE TABLE pcli.governance (store_id STRING NOT NULL, policy_digest STRING NOT NULL, head_seq BIGINT NOT NULL, head_hash STRING NOT NULL, updated_at STRING NOT NULL, store_path STRING)"
  )
  await connection.run(`INSERT INTO pcli.governance VALUES ('0b7c2f52-6a4e-4bd9-9d39-2a3c1e0f9a11', '${"ab".repeat(32)}', 9007199254740993, '${"c".repeat(64)}', 'now', NULL)`)
  // Every type the worker reads, NULLs among them, over several chunks (2,048 rows each) and validity words.
  await connection.run(
    "CREATE TABLE t AS SELECT i::INTEGER AS n, (i * 3000000000)::BIGINT AS big, i / 7 AS d, i % 2 = 0 AS b, CASE WHEN i % 5 = 0 THEN NULL ELSE repeat('é', i % 20) END AS s FROM range(-3, 5000) r(i)"
  )
  connection.closeSync()
  instance.closeSync()
  return file
}

/** The warehouse `file` opened READ_ONLY, on the worker when `onWorker` (started as the bin starts it), else on this thread. */
const readOnly = <A, E>(file: string, onWorker: boolean, use: (wh: WarehouseService) => Effect.Effect<A, E>, maxRetries = 0) =>
  Effect.gen(function* () {
    if (onWorker) startReadOnlyWorker(dist)
    const context = yield* Layer.build(embeddedLayer(file, { readOnly: true, lazy: true, openRetry: { maxRetries, baseDelayMillis: 20 } }))
    return yield* Effect.flatMap(Warehouse, use).pipe(Effect.provide(context))
  }).pipe(
    Effect.scoped,
    Effect.provide(NodeContext.layer),
    // A worker the layer did not take (it always should here) is not left for the next case.
    Effect.ensuring(Effect.sync(() => takeReadOnlyWorker()))
  )

const both = <A, E>(file: string, use: (wh: WarehouseService) => Effect.Effect<A, E>, maxRetries = 0) =>
  Effect.all([Effect.either(readOnly(file, true, use, maxRetries)), Effect.either(readOnly(file, false, use, maxRetries))])

describe("the read-only DuckDB worker (audit --verify's witness read)", () => {
  it("is built beside the bin", () => {
    expect(fs.existsSync(path.join(dist, READ_ONLY_WORKER_FILE))).toBe(true)
  })

  it.live("reads the governance record and every type it reads as node-api does on the main thread, chunk and NULL boundaries included", () =>
    Effect.gen(function* () {
      const file = yield* Effect.promise(makeFile)
      const [worker, main] = yield* both(file, (wh) => Effect.all([readRecord(wh), wh.execute("SELECT * FROM t ORDER BY n"), wh.execute("SELECT 1 WHERE false")]))
      expect(worker).toEqual(main)
      if (main._tag === "Left") throw main.left
      const [record, table] = main.right
      expect(record).toEqual({ store_id: "0b7c2f52-6a4e-4bd9-9d39-2a3c1e0f9a11", policy_digest: "ab".repeat(32), head_seq: 9007199254740992, head_hash: "c".repeat(64) })
      expect(table.rows).toHaveLength(5003)
      expect(table.rows.filter((r) => (r as ReadonlyArray<unknown>)[4] === null)).toHaveLength(1000)
    })
  )

  it.live("a table that is not there is no record; bad SQL and a type it does not read fail as statements", () =>
    Effect.gen(function* () {
      const file = yield* Effect.promise(makeFile)
      yield* Effect.promise(async () => {
        const instance = await DuckDBInstance.create(file)
        await (await instance.connect()).run("DROP TABLE pcli.governance")
        instance.closeSync()
      })
      const [worker, main] = yield* both(file, (wh) => Effect.all([readRecord(wh), Effect.either(wh.execute("SELEC 1"))]))
      expect(worker).toEqual(main)
      expect(main).toMatchObject({ right: [undefined, { _tag: "Left", left: { _tag: "StatementFailed", detail: expect.stringContaining("syntax error") } }] })
      const date = yield* Effect.flip(readOnly(file, true, (wh) => wh.execute("SELECT DATE '2026-01-01' AS day")))
      expect(date).toMatchObject({ _tag: "StatementFailed", detail: "the read-only worker does not read column day (DuckDB type DATE)" })
    })
  )

  it.live("a file another process holds: the open is retried, then reported as the same lock failure", () =>
    Effect.gen(function* () {
      const file = yield* Effect.promise(makeFile)
      const holder = yield* Effect.promise(() => holdDuckDbFile(file))
      const [worker, main] = yield* both(file, (wh) => wh.execute("SELECT 1"), 1).pipe(Effect.ensuring(Effect.promise(() => release(holder))))
      expect(worker).toEqual(main)
      expect(main).toMatchObject({ left: { _tag: "StatementFailed", detail: `the embedded warehouse ${file} is locked by another process (PID ${holder.pid}); gave up after 2 attempts` } })
    })
  )
})
