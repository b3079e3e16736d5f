import { FileSystem, Path } from "@effect/platform"
import { Clock, Context, Duration, Effect, Layer, Option, Schema } from "effect"
import { createHash } from "node:crypto"
import * as os from "node:os"

/**
 * Per-host request budget shared by every pcli process on this machine: a token bucket
 * in `<dir>/<host-key>.json`, read-modify-written only while holding `<file>.lock`
 * (created with O_EXCL). A throttle answer (429/5xx) pushes `wake_at_ms` forward so all
 * processes pause together. Every I/O failure fails open: the request proceeds.
 */
export interface RateBudgetOptions {
  /** Bucket size: requests that may start back-to-back. */
  readonly capacity: number
  /** Steady refill, requests per second. */
  readonly refillPerSecond: number
  /** Longest single wait on a recorded throttle window. */
  readonly maxWaitMillis: number
  /** A lock older than this is considered abandoned by a crashed process. */
  readonly staleLockMillis: number
}

export const defaultRateBudgetOptions: RateBudgetOptions = {
  capacity: 50,
  refillPerSecond: 25,
  maxWaitMillis: 300_000,
  staleLockMillis: 2_000
}

export interface RateBudgetService {
  /** Waits until the host's bucket grants one request. */
  readonly acquire: (host: string) => Effect.Effect<void>
  /** Records that the host asked us to back off for `millis` (max-merged with the current window). */
  readonly recordThrottle: (host: string, millis: number) => Effect.Effect<void>
}

export class RateBudget extends Context.Tag("pcli/RateBudget")<RateBudget, RateBudgetService>() {}

const BucketState = Schema.parseJson(
  Schema.Struct({ tokens: Schema.Number, updated_ms: Schema.Number, wake_at_ms: Schema.Number })
)
type BucketState = typeof BucketState.Type

const hostKey = (host: string) =>
  `${host.replace(/[^A-Za-z0-9.-]/g, "_").slice(0, 64)}-${createHash("sha256").update(host).digest("hex").slice(0, 8)}`

export const make = (dir: string, options: RateBudgetOptions = defaultRateBudgetOptions) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path

    const statePath = (host: string) => path.join(dir, `${hostKey(host)}.json`)

    const tryLock = (lock: string) =>
      fs.open(lock, { flag: "wx" }).pipe(
        Effect.scoped,
        Effect.as(true),
        Effect.catchAll(() =>
          // Held by someone: break it only when it is stale.
          fs.stat(lock).pipe(
            Effect.flatMap((info) =>
              Effect.gen(function* () {
                const now = yield* Clock.currentTimeMillis
                const mtime = Option.getOrElse(info.mtime, () => new Date(now)).getTime()
                if (now - mtime > options.staleLockMillis) yield* fs.remove(lock)
                return false
              })
            ),
            Effect.orElseSucceed(() => false)
          )
        )
      )

    /** Runs `f` on the bucket state under the lock; gives up on the lock after ~2 s (fail open). */
    const withLockedState = <A>(host: string, f: (s: BucketState, now: number) => readonly [BucketState, A]) =>
      Effect.gen(function* () {
        const file = statePath(host)
        const lock = `${file}.lock`
        yield* fs.makeDirectory(dir, { recursive: true })
        let locked = false
        for (let i = 0; i < 400 && !locked; i++) {
          locked = yield* tryLock(lock)
          if (!locked) yield* Effect.sleep(Duration.millis(5))
        }
        const run = Effect.gen(function* () {
          const now = yield* Clock.currentTimeMillis
          const current = yield* fs.readFileString(file).pipe(
            Effect.flatMap(Schema.decode(BucketState)),
            Effect.orElseSucceed(
              (): BucketState => ({ tokens: options.capacity, updated_ms: now, wake_at_ms: 0 })
            )
          )
          const [next, result] = f(current, now)
          const tmp = `${file}.tmp`
          yield* fs.writeFileString(tmp, yield* Schema.encode(BucketState)(next))
          yield* fs.rename(tmp, file)
          return result
        })
        return yield* locked ? Effect.ensuring(run, fs.remove(lock).pipe(Effect.ignore)) : run
      })

    const refill = (s: BucketState, now: number): BucketState => ({
      ...s,
      tokens: Math.min(options.capacity, s.tokens + (Math.max(0, now - s.updated_ms) * options.refillPerSecond) / 1000),
      updated_ms: now
    })

    const acquire = (host: string): Effect.Effect<void> =>
      Effect.gen(function* () {
        for (;;) {
          const wait = yield* withLockedState(host, (s0, now) => {
            const s = refill(s0, now)
            if (s.wake_at_ms > now) return [s, Math.min(s.wake_at_ms - now, options.maxWaitMillis)] as const
            if (s.tokens >= 1) return [{ ...s, tokens: s.tokens - 1 }, 0] as const
            return [s, Math.ceil(((1 - s.tokens) * 1000) / options.refillPerSecond)] as const
          }).pipe(Effect.orElseSucceed(() => 0))
          if (wait <= 0) return
          yield* Effect.sleep(Duration.millis(wait))
        }
      })

    const recordThrottle = (host: string, millis: number): Effect.Effect<void> =>
      withLockedState(host, (s, now) => [{ ...s, wake_at_ms: Math.max(s.wake_at_ms, now + millis) }, undefined] as const).pipe(
        Effect.ignore
      )

    return RateBudget.of({ acquire, recordThrottle })
  })

/** Budget files under `<dir>`. */
export const layerAt = (dir: string, options?: RateBudgetOptions) => Layer.effect(RateBudget, make(dir, options))

/** Budget files under `<os tmpdir>/.pcli/ratelimit`. */
export const layer = Layer.unwrapEffect(
  Effect.sync(() => layerAt(`${os.tmpdir()}/.pcli/ratelimit`))
)

/** No budget at all (the sequential baseline of the bench). */
export const layerUnlimited = Layer.succeed(RateBudget, RateBudget.of({ acquire: () => Effect.void, recordThrottle: () => Effect.void }))
