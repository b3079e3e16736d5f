import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { connectionLanes } from "../../src/services/Runner/lanes"
import { StatementFailed, Warehouse, type WarehouseService } from "../../src/services/Warehouse/Warehouse"

/** A warehouse whose log falls due every few builds; it records what was running at each checkpoint. */
const fakeWarehouse = (dueEvery: number) => {
  const seen = { running: 0, maxRunning: 0, checkpoints: 0, runningAtCheckpoint: [] as Array<number>, dueChecks: 0 }
  const lane: WarehouseService = {
    kind: "embedded",
    execute: () =>
      Effect.acquireUseRelease(
        Effect.sync(() => {
          seen.running++
          seen.maxRunning = Math.max(seen.maxRunning, seen.running)
        }),
        () => Effect.as(Effect.sleep("3 millis"), { columns: [], rows: [] }),
        () => Effect.sync(() => seen.running--)
      )
  }
  const wh: WarehouseService = {
    kind: "embedded",
    execute: lane.execute,
    session: Effect.succeed(lane),
    log: {
      due: Effect.sync(() => ++seen.dueChecks % dueEvery === 0),
      checkpoint: Effect.sync(() => {
        seen.checkpoints++
        seen.runningAtCheckpoint.push(seen.running)
      })
    }
  }
  return { wh, seen }
}

describe("connection lanes", () => {
  it.scopedLive("checkpoints a due log only while no build runs, and every build still runs", () =>
    Effect.gen(function* () {
      const { wh, seen } = fakeWarehouse(5)
      const { onLane, width } = yield* Effect.provideService(connectionLanes(undefined), Warehouse, wh)
      expect(width).toBe(4)
      const build = Effect.flatMap(Warehouse, (w) => Effect.zipRight(w.execute("a"), w.execute("b")))
      const done = yield* Effect.forEach(Array.from({ length: 40 }, (_, i) => i), (i) => Effect.as(onLane(build), i), { concurrency: width })
      expect(done).toHaveLength(40)
      expect(seen.checkpoints).toBeGreaterThan(0)
      expect(seen.runningAtCheckpoint.every((n) => n === 0)).toBe(true)
      expect(seen.maxRunning).toBeLessThanOrEqual(4)
      expect(seen.maxRunning).toBeGreaterThan(1)
    })
  )

  it.scopedLive("a failing checkpoint is ignored and the lanes reopen", () =>
    Effect.gen(function* () {
      const { wh } = fakeWarehouse(2)
      const broken: WarehouseService = {
        ...wh,
        log: { due: Effect.succeed(true), checkpoint: Effect.fail(new StatementFailed({ detail: "no", transient: false })) }
      }
      const { onLane, width } = yield* Effect.provideService(connectionLanes(2), Warehouse, broken)
      const done = yield* Effect.forEach([1, 2, 3, 4, 5], (i) => Effect.as(onLane(Effect.void), i), { concurrency: width })
      expect(done).toEqual([1, 2, 3, 4, 5])
    })
  )
})
