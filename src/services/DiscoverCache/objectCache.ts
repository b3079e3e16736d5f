import { Effect, Option } from "effect"
import { md5Hex, type ObjectStore, type ObjectStoreError } from "../../platform/ObjectStore/ObjectStore"
import type { CacheBackend } from "../../schemas/adapters"
import { type CacheStore, skipped, written } from "./CacheStore"
import { decodeEntry } from "./decode"
import { contentHash, type ObjectFacts, objectUnchanged, serializeEnvelope } from "./dedupe"
import { CacheEntryTooLarge, CacheObjectStoreError } from "./errors"
import { entryPath } from "./keys"

/** Single-part PUT limit (interface "Limits": 5 MB, read as 5 MiB). */
export const OBJECT_STORE_MAX_BYTES = 5 * 1024 * 1024

/** Metadata name of the content hash (stored as `pcli_content_hash` on Azure). */
export const CONTENT_HASH_METADATA = "pcli-content-hash"

const asCacheError = (backend: CacheBackend) => (e: ObjectStoreError) =>
  new CacheObjectStoreError({ backend, operation: e.operation === "list" ? "get" : e.operation, detail: e.detail })

/** The cache over an object store: size limit, dedupe by HEAD, single-part PUT with MD5 + content-hash metadata. */
export const makeObjectCache = (store: ObjectStore, backend: CacheBackend = "object_store"): CacheStore => {
  const fail = asCacheError(backend)
  const decodeText = (bytes: Uint8Array) => decodeEntry(backend, new TextDecoder().decode(bytes))

  /** The store's facts; an object without our hash metadata (a file:// store, another writer) is read to derive it. */
  const factsOf = (name: string): Effect.Effect<Option.Option<ObjectFacts>, CacheObjectStoreError> =>
    Effect.flatMap(Effect.mapError(store.head(name), fail), (head) => {
      if (Option.isNone(head)) return Effect.succeed(Option.none())
      const facts = head.value
      const stored = facts.metadata[CONTENT_HASH_METADATA]
      if (stored !== undefined) return Effect.succeed(Option.some({ etag: facts.etag, md5Hex: facts.md5Hex, contentHash: stored }))
      return store.get(name).pipe(
        Effect.mapError(fail),
        Effect.flatMap((bytes) => (Option.isNone(bytes) ? Effect.succeed(Option.none<string>()) : Effect.option(Effect.map(decodeText(bytes.value), contentHash)))),
        Effect.map((hash) => Option.some({ etag: facts.etag, md5Hex: facts.md5Hex, contentHash: Option.getOrUndefined(hash) }))
      )
    })

  return {
    backend,
    read: (key) =>
      store.get(entryPath(key)).pipe(
        Effect.mapError(fail),
        Effect.flatMap((bytes) => (Option.isNone(bytes) ? Effect.succeed(Option.none()) : Effect.asSome(decodeText(bytes.value))))
      ),
    write: (key, envelope) =>
      Effect.gen(function* () {
        const body = serializeEnvelope(envelope)
        const bytes = Buffer.byteLength(body)
        if (bytes > OBJECT_STORE_MAX_BYTES) {
          return yield* new CacheEntryTooLarge({ backend, bytes, limit: OBJECT_STORE_MAX_BYTES })
        }
        const hash = contentHash(envelope)
        const facts = yield* factsOf(entryPath(key))
        if (Option.isSome(facts) && objectUnchanged(facts.value, md5Hex(body), hash)) return skipped
        yield* store
          .put(entryPath(key), body, { contentType: "application/json", metadata: { [CONTENT_HASH_METADATA]: hash } })
          .pipe(Effect.mapError(fail))
        return written(bytes)
      })
  }
}
