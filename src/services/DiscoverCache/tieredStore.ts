import { Effect, Option } from "effect"
import type { CacheStore, WriteResult } from "./CacheStore"

/**
 * kv in front, object store behind. Read: kv, then the object store, back-filling kv
 * (best effort, logged). Write: both layers concurrently, each deduplicating itself;
 * `Written` when either layer wrote, `Skipped` when both skipped, a failure when either failed.
 */
export const makeTieredStore = (kv: CacheStore, objects: CacheStore): CacheStore => ({
  backend: "tiered",
  read: (key) =>
    kv.read(key).pipe(
      Effect.tapError((e) => Effect.logWarning(`tiered cache: kv read failed, reading the object store: ${e.message}`)),
      Effect.orElseSucceed(() => Option.none()),
      Effect.flatMap((front) =>
        Option.isSome(front)
          ? Effect.succeed(front)
          : objects.read(key).pipe(
              Effect.tap((behind) =>
                Option.isNone(behind)
                  ? Effect.void
                  : kv.write(key, behind.value).pipe(
                      Effect.catchAll((e) => Effect.logWarning(`tiered cache: kv back-fill failed: ${e.message}`))
                    )
              )
            )
      )
    ),
  write: (key, envelope) =>
    Effect.gen(function* () {
      const [behind, front] = yield* Effect.all([Effect.either(objects.write(key, envelope)), Effect.either(kv.write(key, envelope))], {
        concurrency: 2
      })
      // Each layer's failure is a failure of the write (interface rule 4), the object store's first.
      if (behind._tag === "Left") return yield* Effect.fail(behind.left)
      if (front._tag === "Left") return yield* Effect.fail(front.left)
      const results: ReadonlyArray<WriteResult> = [behind.right, front.right]
      return results.find((r) => r._tag === "Written") ?? behind.right
    })
})
