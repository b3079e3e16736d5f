import { FileSystem, Path } from "@effect/platform"
import { Clock, Effect, Option } from "effect"
import type { EltAdapter } from "../../schemas/adapters"
import type { DiscoverOutput, Envelope } from "../../schemas/discover"
import { writeFileAtomic } from "../../platform/atomicWrite"
import type { CacheStore } from "../DiscoverCache/CacheStore"
import { DiscoverCache } from "../DiscoverCache/DiscoverCache"
import type { CacheError } from "../DiscoverCache/errors"
import { cacheKey, logicalKey } from "../DiscoverCache/keys"
import { DEFAULT_BASE_URL, EltApi, type ProgressCallback } from "../EltApi/EltApi"
import { normalizeEnvelope } from "../EltApi/envelope"
import { emitCacheEvent } from "./cacheEvents"
import { EmitStateFailed } from "./errors"
import { sourcesOf } from "./sources"

export interface DiscoverRequest {
  readonly adapterName: string
  readonly adapter: EltAdapter
  /** `--no-cache`: skip the read (miss `refresh-forced`), still write the fresh envelope back. */
  readonly noCache: boolean
  /** `--emit-elt-state-to <path>`: the envelope as pretty JSON, staged then renamed. */
  readonly emitTo?: string | undefined
  /** Cold-fetch progress (connectors done/total) for a TTY line; never called on a hit. */
  readonly onProgress?: ProgressCallback | undefined
}

type ReadOutcome = DiscoverOutput["cache"]["read"]
type WriteOutcome = NonNullable<DiscoverOutput["cache"]["write"]>

/**
 * `pcli discover` for one connector-sync adapter: read through the cache, fetch over HTTP on a
 * miss, write back (deduplicated), optionally emit the envelope. Cache failures never fail it.
 */
export const discover = (request: DiscoverRequest) =>
  Effect.gen(function* () {
    const api = yield* EltApi
    const caches = yield* DiscoverCache
    const { adapter } = request
    const key = cacheKey(adapter.api_key, adapter.destination_id)
    const eventKey = logicalKey(key)
    const backend = adapter.cache?.backend ?? "none"
    const store = yield* caches.open(request.adapterName, adapter.cache)

    const fetchFresh = api.fetchEnvelope(
      {
        baseUrl: adapter.base_url ?? DEFAULT_BASE_URL,
        apiKey: adapter.api_key,
        apiSecret: adapter.api_secret,
        destinationId: adapter.destination_id
      },
      request.onProgress
    )

    const recoverWrite = (error: CacheError) =>
      Effect.gen(function* () {
        yield* Effect.logWarning(`discover cache write failed; continuing without it: ${error.message}`).pipe(
          Effect.annotateLogs({ backend, key: eventKey })
        )
        yield* emitCacheEvent({ _tag: "elt.cache_write_failed", backend, key: eventKey, error: error.message })
        return "failed" as WriteOutcome
      })

    const writeBack = (cache: CacheStore, envelope: Envelope) =>
      cache.write(key, envelope).pipe(
        Effect.flatMap((result) =>
          result._tag === "Written"
            ? emitCacheEvent({ _tag: "elt.cache_write", backend, key: eventKey, bytes: result.bytes, outcome: "written" }).pipe(
                Effect.as("written" as WriteOutcome)
              )
            : emitCacheEvent({ _tag: "elt.cache_write_skipped", backend, key: eventKey, reason: "hash-match" }).pipe(
                Effect.as("skipped" as WriteOutcome)
              )
        ),
        // Fail open, explicitly: each backend failure is recovered here and reported.
        Effect.catchTags({
          CacheIoError: recoverWrite,
          CacheObjectStoreError: recoverWrite,
          CacheKvError: recoverWrite,
          CacheEntryTooLarge: recoverWrite,
          CacheEntryCorrupt: recoverWrite
        })
      )

    const readThrough = (cache: CacheStore) =>
      Effect.gen(function* () {
        if (request.noCache) {
          yield* emitCacheEvent({ _tag: "elt.cache_miss", backend, key: eventKey, reason: "refresh-forced" })
          return { read: "refresh-forced" as ReadOutcome, hit: Option.none<Envelope>() }
        }
        const recoverRead = (error: CacheError) =>
          Effect.logWarning(`discover cache read failed; fetching over HTTP: ${error.message}`).pipe(
            Effect.annotateLogs({ backend, key: eventKey }),
            Effect.zipRight(emitCacheEvent({ _tag: "elt.cache_miss", backend, key: eventKey, reason: "no-entry" })),
            Effect.as({ read: "read-failed" as ReadOutcome, hit: Option.none<Envelope>() })
          )
        return yield* cache.read(key).pipe(
          Effect.flatMap((entry) =>
            Effect.gen(function* () {
              if (Option.isNone(entry)) {
                yield* emitCacheEvent({ _tag: "elt.cache_miss", backend, key: eventKey, reason: "no-entry" })
                return { read: "miss" as ReadOutcome, hit: Option.none<Envelope>() }
              }
              const now = yield* Clock.currentTimeMillis
              const fetchedAt = Date.parse(entry.value.fetched_at)
              const age = Number.isNaN(fetchedAt) ? 0 : Math.max(0, Math.floor((now - fetchedAt) / 1000))
              yield* emitCacheEvent({ _tag: "elt.cache_hit", backend, key: eventKey, age_seconds: age })
              return { read: "hit" as ReadOutcome, hit: entry }
            })
          ),
          Effect.catchTags({
            CacheIoError: recoverRead,
            CacheObjectStoreError: recoverRead,
            CacheKvError: recoverRead,
            CacheEntryTooLarge: recoverRead,
            CacheEntryCorrupt: recoverRead
          })
        )
      })

    let read: ReadOutcome = "disabled"
    let write: WriteOutcome | undefined
    let envelope: Envelope
    if (Option.isNone(store)) {
      envelope = yield* fetchFresh
    } else {
      const cached = yield* readThrough(store.value)
      read = cached.read
      if (Option.isSome(cached.hit)) {
        envelope = normalizeEnvelope(cached.hit.value)
      } else {
        envelope = yield* fetchFresh
        write = yield* writeBack(store.value, envelope)
      }
    }

    if (request.emitTo !== undefined) {
      const target = request.emitTo
      yield* writeFileAtomic(target, JSON.stringify(envelope, null, 2)).pipe(
        Effect.mapError((e) => new EmitStateFailed({ path: target, detail: e.message }))
      )
    }

    const output: DiscoverOutput = {
      command: "discover",
      adapter: request.adapterName,
      destination_id: adapter.destination_id,
      account_hash: key.accountHash,
      fetched_at: envelope.fetched_at,
      cache: write === undefined ? { backend, read } : { backend, read, write },
      sources: sourcesOf(envelope),
      ...(request.emitTo === undefined ? {} : { emitted_to: request.emitTo })
    }
    return output
  }).pipe(
    Effect.scoped,
    Effect.withSpan("pcli.discover", {
      attributes: { "pcli.adapter": request.adapterName, "pcli.destination_id": request.adapter.destination_id }
    })
  )

/** The services `discover` needs beyond `EltApi` and `DiscoverCache`. */
export type DiscoverPlatform = FileSystem.FileSystem | Path.Path
