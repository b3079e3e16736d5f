import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { DuckDBInstance } from "@duckdb/node-api"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { layer as embeddedLayer } from "../../src/services/Warehouse/embedded"
import { Warehouse } from "../../src/services/Warehouse/Warehouse"

/** Many chunks (DuckDB's are 2,048 rows), every kind of value the runner reads back, NULLs among them. */
const wideQuery = `SELECT range AS id, range::INTEGER % 7 AS k, 'v' || range AS label,
  CASE WHEN range % 5 = 0 THEN NULL ELSE range * 1.5 END AS amount,
  DATE '2026-01-01' + (range % 400)::INTEGER AS day, [range, range + 1] AS pair,
  {'a': range % 3, 'b': 'x'} AS rec, range % 2 = 0 AS even, (range % 9)::DECIMAL(10, 2) AS price
FROM range(5000) ORDER BY range`

/** What DuckDB's own reader gives: every chunk fetched, then converted to JS values. */
const readByFetching = async (sql: string) => {
  const instance = await DuckDBInstance.create(":memory:")
  const connection = await instance.connect()
  try {
    const reader = await connection.runAndReadAll(sql)
    return { names: reader.columnNames(), rows: reader.getRowsJS() }
  } finally {
    connection.closeSync()
    instance.closeSync()
  }
}

const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "pcli-read-")), "warehouse.duckdb")
const warehouse = embeddedLayer(file).pipe(Layer.provide(NodeContext.layer))

describe("embedded warehouse: reading results", () => {
  it.live("reads every chunk of a result, values as DuckDB's own reader converts them, on a fresh connection and on a session", () =>
    Effect.gen(function* () {
      const expected = yield* Effect.promise(() => readByFetching(wideQuery))
      expect(expected.rows).toHaveLength(5000)
      const wh = yield* Warehouse
      const fresh = yield* wh.execute(wideQuery)
      expect(fresh.columns.map((c) => c.name)).toEqual(expected.names)
      expect(fresh.rows).toEqual(expected.rows)
      const lane = yield* wh.session!
      const pinned = yield* lane.execute(`BEGIN TRANSACTION;\nCREATE TABLE t AS ${wideQuery};\nSELECT * FROM t ORDER BY id`)
      expect(pinned.rows).toEqual(expected.rows)
      yield* lane.execute("ROLLBACK")
      const empty = yield* wh.execute("SELECT 1 AS one WHERE false")
      expect(empty).toEqual({ columns: [{ name: "one", type: "INTEGER" }], rows: [] })
    }).pipe(Effect.scoped, Effect.provide(warehouse))
  )
})
