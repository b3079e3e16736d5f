import { Effect, Pool, Ref, Schedule, Scope } from "effect"
import { type StatementFailed, Warehouse, type WarehouseService } from "../Warehouse/Warehouse"

/** Connections a run keeps open when its concurrency is unbounded: DuckDB's calls queue on libuv's 4 threads beyond that. */
const defaultLanes = 4

export type OnLane = <A, E, R>(build: Effect.Effect<A, E, R>) => Effect.Effect<A, E | StatementFailed, Exclude<R, Warehouse>>

export interface Lanes {
  /** Runs one model build on a lane of its own. */
  readonly onLane: OnLane
  /** How many builds can run at once: the number of lanes, or unbounded without sessions. */
  readonly width: number | "unbounded"
}

/**
 * One warehouse connection per concurrency lane, for the run's scope: each model build borrows
 * one for all its statements instead of opening a connection per statement. A warehouse
 * without sessions (remote) runs builds as they are.
 *
 * With lanes always busy DuckDB never finds a moment free of transactions to checkpoint its
 * log on its own, so committed tables would pile up in memory and in the log until the file
 * closes. When the warehouse says its log is due, the build about to start closes the gate:
 * no new build starts, the ones in flight finish, the log is checkpointed with no transaction
 * open, and the gate reopens.
 */
export const connectionLanes = (concurrency: number | "unbounded" | undefined) =>
  Effect.gen(function* () {
    const wh = yield* Warehouse
    const session = wh.kind === "embedded" ? wh.session : undefined
    if (session === undefined) return { onLane: ((build) => build) as OnLane, width: concurrency ?? "unbounded" } as Lanes
    const size = typeof concurrency === "number" ? Math.max(1, concurrency) : defaultLanes
    // Connections open with the first build: a run that reuses every model opens none.
    const lanes = yield* Effect.cached(Effect.map(openLanes(wh, session, size), (l) => l.onLane).pipe(Scope.extend(yield* Effect.scope)))
    const onLane: OnLane = (build) => Effect.flatMap(lanes, (run) => run(build))
    return { onLane, width: size } as Lanes
  })

const openLanes = (wh: WarehouseService, session: NonNullable<WarehouseService["session"]>, size: number) =>
  Effect.gen(function* () {
    const pool = yield* Pool.make({ acquire: session, size })
    const onConnection: OnLane = (build) =>
      Effect.scoped(Effect.flatMap(Pool.get(pool), (lane) => Effect.provideService(build, Warehouse, { ...wh, execute: lane.execute, pinned: true })))
    const log = wh.log
    if (log === undefined) return { onLane: onConnection, width: size } as Lanes

    /** Builds running, and whether the gate is closed to new ones (changed together, in one step). */
    const gate = yield* Ref.make({ running: 0, closed: false })
    const reopened = yield* Effect.makeLatch(true)
    const checkpointing = yield* Ref.make(false)
    const enter: Effect.Effect<void> = Effect.suspend(() =>
      Effect.flatMap(
        Ref.modify(gate, (g) => (g.closed ? [false, g] : [true, { ...g, running: g.running + 1 }])),
        (entered) => (entered ? Effect.void : Effect.zipRight(reopened.await, enter))
      )
    )
    const leave = Ref.update(gate, (g) => ({ ...g, running: g.running - 1 }))
    const drained = Ref.get(gate).pipe(Effect.repeat({ until: (g) => g.running === 0, schedule: Schedule.spaced("2 millis") }))
    /** True for the one fiber that is to checkpoint: the log is due and no checkpoint is under way. */
    const elected = Effect.flatMap(log.due, (due) => (due ? Ref.modify(checkpointing, (busy) => [!busy, true] as const) : Effect.succeed(false)))
    // The latch closes before the flag is set and the flag clears before it reopens, so a build turned away always waits.
    const checkpointIfDue = Effect.uninterruptibleMask((restore) =>
      Effect.flatMap(elected, (go) =>
        go
          ? reopened.close.pipe(
              Effect.zipRight(Ref.update(gate, (g) => ({ ...g, closed: true }))),
              Effect.zipRight(restore(Effect.zipRight(drained, Effect.ignore(log.checkpoint)))),
              Effect.ensuring(
                Ref.update(gate, (g) => ({ ...g, closed: false })).pipe(
                  Effect.zipRight(reopened.open),
                  Effect.zipRight(Ref.set(checkpointing, false))
                )
              )
            )
          : Effect.void
      )
    )
    const onLane: OnLane = (build) =>
      Effect.zipRight(
        checkpointIfDue,
        Effect.uninterruptibleMask((restore) => Effect.zipRight(restore(enter), Effect.ensuring(restore(onConnection(build)), leave)))
      )
    return { onLane, width: size } as Lanes
  })
