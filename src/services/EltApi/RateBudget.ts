import { FileSystem, Path } from "@effect/platform"
import { Clock, Context, Duration, Effect, HashMap, Layer, Option, Ref, Schema } from "effect"
import { createHash } from "node:crypto"
import * as os from "node:os"

/**
 * Per-host request budget shared by every pcli process on this machine: a token bucket
 * in `<dir>/<host-key>.json`, read-modify-written only while holding `<file>.lock`
 * (created with O_EXCL). A throttle answer (429/5xx) pushes `wake_at_ms` forward so all
 * processes pause together. To keep file rounds rare, a process leases up to `lease`
 * tokens per round and spends them locally within `leaseMillis` (unspent ones lapse).
 * Every I/O failure fails open: the request proceeds.
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
  /** Tokens taken from the shared bucket per locked round. */
  readonly lease: number
  /** How long leased tokens stay spendable. */
  readonly leaseMillis: number
}

export const defaultRateBudgetOptions: RateBudgetOptions = {
  capacity: 50,
  refillPerSecond: 25,
  maxWaitMillis: 300_000,
  staleLockMillis: 2_000,
  lease: 5,
  leaseMillis: 1_000
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
    const leases = yield* Ref.make(HashMap.empty<string, { readonly tokens: number; readonly until: number }>())
    const oneAtATime = yield* Effect.makeSemaphore(1)
    const dirReady = yield* Ref.make(false)

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
        if (!(yield* Ref.get(dirReady))) {
          yield* fs.makeDirectory(dir, { recursive: true })
          yield* Ref.set(dirReady, true)
        }
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
          // Written in place under the lock; a torn file decodes as a full bucket (fail open).
          yield* fs.writeFileString(file, yield* Schema.encode(BucketState)(next))
          return result
        })
        return yield* locked ? Effect.ensuring(run, fs.remove(lock).pipe(Effect.ignore)) : run
      })

    const refill = (s: BucketState, now: number): BucketState => ({
      ...s,
      tokens: Math.min(options.capacity, s.tokens + (Math.max(0, now - s.updated_ms) * options.refillPerSecond) / 1000),
      updated_ms: now
    })

    interface Grant {
      readonly wait: number
      readonly taken: number
      readonly now: number
    }

    const takeLeased = (host: string, now: number) =>
      Ref.modify(leases, (map) => {
        const lease = Option.getOrUndefined(HashMap.get(map, host))
        return lease !== undefined && lease.tokens >= 1 && now < lease.until
          ? [true, HashMap.set(map, host, { tokens: lease.tokens - 1, until: lease.until })]
          : [false, map]
      })

    const acquire = (host: string): Effect.Effect<void> =>
      oneAtATime.withPermits(1)(
        Effect.gen(function* () {
          for (;;) {
            if (yield* takeLeased(host, yield* Clock.currentTimeMillis)) return
            const grant = yield* withLockedState(host, (s0, now): readonly [BucketState, Grant] => {
              const s = refill(s0, now)
              if (s.wake_at_ms > now) return [s, { wait: Math.min(s.wake_at_ms - now, options.maxWaitMillis), taken: 0, now }] as const
              if (s.tokens >= 1) {
                const taken = Math.max(1, Math.min(options.lease, Math.floor(s.tokens)))
                return [{ ...s, tokens: s.tokens - taken }, { wait: 0, taken, now }] as const
              }
              return [s, { wait: Math.ceil(((1 - s.tokens) * 1000) / options.refillPerSecond), taken: 0, now }] as const
            }).pipe(Effect.orElseSucceed((): Grant => ({ wait: 0, taken: 1, now: 0 })))
            if (grant.taken > 0) {
              yield* Ref.update(leases, HashMap.set(host, { tokens: grant.taken - 1, until: grant.now + options.leaseMillis }))
              return
            }
            yield* Effect.sleep(Duration.millis(grant.wait))
          }
        })
      )

    const recordThrottle = (host: string, millis: number): Effect.Effect<void> =>
      Ref.update(leases, HashMap.remove(host)).pipe(
        Effect.zipRight(
          withLockedState(host, (s, now) => [{ ...s, wake_at_ms: Math.max(s.wake_at_ms, now + millis) }, undefined] as const)
        ),
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
