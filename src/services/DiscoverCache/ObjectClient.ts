import { Effect, Option } from "effect"
import type { ObjectFacts } from "./dedupe"
import { CacheObjectStoreError } from "./errors"

/** What a single-part write stores next to the body (decisions.md 18: "writes set both"). */
export interface PutFacts {
  readonly md5Base64: string
  readonly contentHash: string
}

/** The three object operations the cache needs, per provider. Names are full object names. */
export interface ObjectClient {
  readonly head: (name: string) => Effect.Effect<Option.Option<ObjectFacts>, CacheObjectStoreError>
  readonly get: (name: string) => Effect.Effect<Option.Option<string>, CacheObjectStoreError>
  readonly put: (name: string, body: string, facts: PutFacts) => Effect.Effect<void, CacheObjectStoreError>
}

/** Metadata key of the content hash (Azure needs an identifier, so it gets `pcli_content_hash`). */
export const CONTENT_HASH_METADATA = "pcli-content-hash"

export const describe = (e: unknown): string => (e instanceof Error ? `${e.name}: ${e.message}` : String(e))

type Operation = "head" | "get" | "put"

/** One provider SDK call as an Effect; any rejection becomes a typed CacheObjectStoreError. */
export const sdkCall = <A>(operation: Operation, f: () => Promise<A>) =>
  Effect.tryPromise({
    try: f,
    catch: (e) => new CacheObjectStoreError({ backend: "object_store", operation, detail: describe(e) })
  })

/** A lookup: the provider's "no such object" answer is `Option.none`, other failures stay errors. */
export const sdkLookup = <A>(operation: Operation, f: () => Promise<A>, isNotFound: (e: unknown) => boolean) =>
  sdkCall(operation, () =>
    f().then(Option.some, (e: unknown) => {
      if (isNotFound(e)) return Option.none<A>()
      throw e
    })
  )
