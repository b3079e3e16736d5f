import { FileSystem, Path } from "@effect/platform"
import { type ConfigError, Context, Effect, Layer, Option, Redacted, Scope } from "effect"
import type { CacheBlock } from "../../schemas/adapters"
import { isSet } from "../../schemas/adapters"
import { makeAzureClient } from "./azureClient"
import type { CacheStore } from "./CacheStore"
import { CacheConfigInvalid, CacheObjectStoreError } from "./errors"
import { makeFileStore } from "./fileStore"
import { makeGcsClient } from "./gcsClient"
import { DEFAULT_KV_TTL_SECONDS, makeKvStore } from "./kvStore"
import { makeLocalObjectClient } from "./localObjectClient"
import type { ObjectClient } from "./ObjectClient"
import { describe } from "./ObjectClient"
import { makeObjectStore, parseObjectStoreUrl } from "./objectStore"
import { makeS3Client } from "./s3Client"
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
        const location = parseObjectStoreUrl(url)
        if (typeof location === "string") return yield* new CacheConfigInvalid({ adapter, backend, detail: location })
        const scope = yield* Effect.scope
        const client: Effect.Effect<ObjectClient, CacheObjectStoreError | ConfigError.ConfigError, Scope.Scope> =
          location.scheme === "s3"
            ? makeS3Client(location.bucket)
            : location.scheme === "gs"
              ? makeGcsClient(location.bucket)
              : location.scheme === "az"
                ? makeAzureClient(location.bucket)
                : withPlatform(makeLocalObjectClient(location.prefix))
        // The SDK loads on the first operation; a credential/config problem there fails open.
        const connect = yield* Effect.cached(
          client.pipe(
            Effect.catchAllDefect((d) => Effect.fail(new CacheObjectStoreError({ backend, operation: "connect", detail: describe(d) }))),
            Effect.mapError((e) =>
              e._tag === "CacheObjectStoreError" ? e : new CacheObjectStoreError({ backend, operation: "connect", detail: String(e) })
            ),
            Scope.extend(scope)
          )
        )
        return makeObjectStore(location, connect, backend)
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
