import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Layer } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { layer as embeddedLayer } from "../../src/services/Warehouse/embedded"
import { Warehouse, type WarehouseService } from "../../src/services/Warehouse/Warehouse"

const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "pcli-lane-rollback-")), "warehouse.duckdb")
const warehouse = embeddedLayer(file).pipe(Layer.provide(NodeContext.layer))

/**
 * Lowers DuckDB's global cap (from another connection) to the least it accepts now, in bytes: what
 * is in use then fills it, as four lanes filling the cap together do in a run.
 */
const squeeze = (wh: WarehouseService) =>
  Effect.gen(function* () {
    // Never below 16 KiB: with almost nothing in use, a cap of bytes would leave no room for the SET that raises it.
    let low = 16 * 1024
    let high = 64 * 1024 * 1024
    while (high - low > 64) {
      const mid = Math.floor((low + high) / 2)
      const set = yield* Effect.either(wh.execute(`SET GLOBAL memory_limit = '${mid}B'`))
      if (Either.isRight(set)) high = mid
      else low = mid
    }
    yield* Effect.either(wh.execute(`SET GLOBAL memory_limit = '${high}B'`))
  })

/** Raises the cap again; the SET itself needs a few KiB, so it is tried until it takes. */
const release = (wh: WarehouseService) =>
  wh.execute("SET GLOBAL memory_limit = '1GB'").pipe(Effect.retry({ times: 20 }))

describe("embedded warehouse: a lane after Out of Memory in its transaction", () => {
  it.live(
    "the lane's next transaction starts clean even when the ROLLBACK itself ran out of memory",
    () =>
      Effect.gen(function* () {
        const wh = yield* Warehouse
        const lane = yield* wh.session!
        yield* wh.execute("CREATE TABLE base AS SELECT range AS id, 'x' || range AS s FROM range(1000000)")
        // The ROLLBACK runs out of memory in most rounds (DuckDB needs 2 KiB for it, on top of what the
        // aborted transaction holds); several rounds make the failure this guards against near certain.
        for (let round = 0; round < 4; round++) {
          yield* lane.execute(`BEGIN TRANSACTION;\nCREATE TABLE kept_${round} AS SELECT * FROM base`)
          yield* squeeze(wh)
          const failed = yield* Effect.flip(lane.execute(`CREATE TABLE more_${round} AS SELECT * FROM base`))
          expect(failed.detail).toMatch(/Out of Memory/)
          yield* release(wh)
          // What the runner's retry does next on this lane: a new build, opening its own transaction.
          const next = yield* Effect.either(lane.execute(`BEGIN TRANSACTION;\nSELECT ${round} AS round`))
          expect(Either.isRight(next) ? next.right.rows : next.left.detail).toEqual([[round]])
          const tables = yield* lane.execute(
            `SELECT table_name FROM information_schema.tables WHERE table_name IN ('kept_${round}', 'more_${round}')`
          )
          // The failed transaction's tables went with it.
          expect(tables.rows).toEqual([])
          yield* lane.execute("ROLLBACK")
        }
        // The lane still commits.
        yield* lane.execute("BEGIN TRANSACTION;\nCREATE TABLE after AS SELECT 1 AS one;\nCOMMIT")
        expect((yield* wh.execute("SELECT one FROM after")).rows).toEqual([[1]])
      }).pipe(Effect.scoped, Effect.provide(warehouse)),
    60_000
  )
})
