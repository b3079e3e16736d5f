import { FileSystem, Path } from "@effect/platform"
import { Context, Effect, Layer, Option, Redacted, type Scope } from "effect"
import * as ObjectStore from "../../platform/ObjectStore/ObjectStore"
import type { CacheBlock } from "../../schemas/adapters"
import { isSet } from "../../schemas/adapters"
import type { CacheStore } from "./CacheStore"
import { CacheConfigInvalid } from "./errors"
import { makeFileStore } from "./fileStore"
import { DEFAULT_KV_TTL_SECONDS, makeKvStore } from "./kvStore"
import { makeObjectCache } from "./objectCache"
import { makeTieredStore } from "./tieredStore"

export interface KvTuning {
  readonly connectTimeoutMillis: number
  readonly commandTimeoutMillis: number
}

export const defaultKvTuning: KvTuning = { connectTimeoutMillis: 1_000, commandTimeoutMillis: 2_000 }

export interface DiscoverCacheService {
  /**
   * Builds the backend an adapter's `[adapter.<name>.cache]` block names; `None` for `none` or
   * no block. Fails only when the block itself is unusable (missing field, bad URL); reaching
   * the backend happens lazily, inside the store's operations, and fails open there.
   * Connections close when the scope closes.
   */
  readonly open: (
    adapterName: string,
    block: CacheBlock | undefined
  ) => Effect.Effect<Option.Option<CacheStore>, CacheConfigInvalid, Scope.Scope>
}

export class DiscoverCache extends Context.Tag("pcli/DiscoverCache")<DiscoverCache, DiscoverCacheService>() {}

export const make = (tuning: KvTuning = defaultKvTuning) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const withPlatform = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      effect.pipe(Effect.provideService(FileSystem.FileSystem, fs), Effect.provideService(Path.Path, path))

    const objectStoreFor = (adapter: string, block: CacheBlock, backend: "object_store" | "tiered") =>
      Effect.gen(function* () {
        const url = block.object_store_url
        if (url === undefined || url.trim() === "") {
          return yield* new CacheConfigInvalid({ adapter, backend, detail: "object_store_url is required" })
        }
        const location = ObjectStore.parseObjectStoreUrl(url, "object_store_url")
        if (typeof location === "string") return yield* new CacheConfigInvalid({ adapter, backend, detail: location })
        // The store connects on its first operation; a credential or network problem there fails open.
        const store = yield* withPlatform(ObjectStore.fromUrl(url)).pipe(
          Effect.mapError((e) => new CacheConfigInvalid({ adapter, backend, detail: e.detail }))
        )
        return makeObjectCache(store, backend)
      })

    const kvStoreFor = (adapter: string, block: CacheBlock, backend: "kv" | "tiered") =>
      Effect.gen(function* () {
        if (!isSet(block.kv_url)) return yield* new CacheConfigInvalid({ adapter, backend, detail: "kv_url is required" })
        const url = block.kv_url
        if (!/^rediss?:\/\//i.test(Redacted.value(url))) {
          return yield* new CacheConfigInvalid({ adapter, backend, detail: "kv_url must start with redis:// or rediss://" })
        }
        return yield* makeKvStore(
          {
            url,
            ttlSeconds: block.kv_ttl_seconds ?? DEFAULT_KV_TTL_SECONDS,
            connectTimeoutMillis: tuning.connectTimeoutMillis,
            commandTimeoutMillis: tuning.commandTimeoutMillis
          },
          backend
        )
      })

    const open: DiscoverCacheService["open"] = (adapter, block) =>
      Effect.gen(function* () {
        if (block === undefined) return Option.none()
        switch (block.backend) {
          case "none":
            return Option.none()
          case "file": {
            if (block.file_root === undefined || block.file_root.trim() === "") {
              return yield* new CacheConfigInvalid({ adapter, backend: "file", detail: "file_root is required" })
            }
            return Option.some(yield* withPlatform(makeFileStore(block.file_root)))
          }
          case "object_store":
            return Option.some(yield* objectStoreFor(adapter, block, "object_store"))
          case "kv":
            return Option.some(yield* kvStoreFor(adapter, block, "kv"))
          case "tiered": {
            const objects = yield* objectStoreFor(adapter, block, "tiered")
            const kv = yield* kvStoreFor(adapter, block, "tiered")
            return Option.some(makeTieredStore(kv, objects))
          }
        }
      })

    return DiscoverCache.of({ open })
  })

/** Needs `FileSystem` and `Path` (NodeContext in production). */
export const layer = Layer.effect(DiscoverCache, make())
export const layerWith = (tuning: KvTuning) => Layer.effect(DiscoverCache, make(tuning))
