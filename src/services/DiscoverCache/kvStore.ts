import { Effect, Option, Redacted, Ref } from "effect"
import type { Redis } from "ioredis"
import type { CacheBackend } from "../../schemas/adapters"
import { type CacheStore, skipped, written } from "./CacheStore"
import { decodeEntry } from "./decode"
import { contentHash, serializeEnvelope } from "./dedupe"
import { CacheKvError } from "./errors"
import { kvKey } from "./keys"

export const DEFAULT_KV_TTL_SECONDS = 600

export interface KvOptions {
  readonly url: Redacted.Redacted<string>
  readonly ttlSeconds: number
  /** Bound on connecting to a dead server. */
  readonly connectTimeoutMillis: number
  /** Bound on one command. */
  readonly commandTimeoutMillis: number
}

/** Never echo the URL: it may carry a password. ioredis messages name host:port at most. */
const describe = (e: unknown) => (e instanceof Error ? e.message : String(e))

/**
 * Redis/Valkey through ioredis (loaded on first use). Connects lazily once, never queues
 * offline, does not reconnect in the background, retries a command at most once.
 */
export const makeKvStore = (options: KvOptions, backend: CacheBackend = "kv") =>
  Effect.gen(function* () {
    const connected = yield* Ref.make(Option.none<Redis>())
    const connect = yield* Effect.cached(
      Effect.tryPromise({
        try: async () => {
          const { Redis } = await import("ioredis")
          const client = new Redis(Redacted.value(options.url), {
            lazyConnect: true,
            connectTimeout: options.connectTimeoutMillis,
            commandTimeout: options.commandTimeoutMillis,
            maxRetriesPerRequest: 1,
            enableOfflineQueue: false,
            retryStrategy: () => null
          })
          // Errors surface through the failed command; an unhandled 'error' event would crash node.
          client.on("error", () => undefined)
          await client.connect().catch((e: unknown) => {
            client.disconnect()
            return Promise.reject(e)
          })
          return client
        },
        catch: (e) => new CacheKvError({ backend, operation: "connect", detail: describe(e) })
      }).pipe(Effect.tap((client) => Ref.set(connected, Option.some(client))))
    )
    // Close the connection when the opener's scope ends, only if it was ever made.
    yield* Effect.addFinalizer(() =>
      Ref.get(connected).pipe(
        Effect.flatMap(
          Option.match({
            onNone: () => Effect.void,
            onSome: (client) => Effect.promise(() => client.quit().then(() => undefined, () => client.disconnect()))
          })
        )
      )
    )

    const command = <A>(operation: CacheKvError["operation"], f: (client: Redis) => Promise<A>) =>
      connect.pipe(
        Effect.flatMap((client) =>
          Effect.tryPromise({
            try: () => f(client),
            catch: (e) => new CacheKvError({ backend, operation, detail: describe(e) })
          })
        )
      )

    const ttl = Math.max(1, Math.floor(options.ttlSeconds))

    const store: CacheStore = {
      backend,
      read: (key) =>
        command("get", (c) => c.get(kvKey(key))).pipe(
          Effect.flatMap((text) => (text === null ? Effect.succeedNone : Effect.asSome(decodeEntry(backend, text))))
        ),
      write: (key, envelope) =>
        Effect.gen(function* () {
          const k = kvKey(key)
          const prior = yield* command("get", (c) => c.get(k))
          if (prior !== null) {
            const decoded = yield* decodeEntry(backend, prior).pipe(Effect.option)
            if (Option.isSome(decoded) && contentHash(decoded.value) === contentHash(envelope)) {
              // decisions.md 19: an unchanged entry still gets a fresh TTL.
              yield* command("expire", (c) => c.expire(k, ttl))
              return skipped
            }
          }
          const text = serializeEnvelope(envelope)
          yield* command("set", (c) => c.set(k, text, "EX", ttl))
          return written(Buffer.byteLength(text))
        })
    }
    return store
  })
