import { Effect, Option } from "effect"
import type { CacheBackend } from "../../schemas/adapters"
import { type CacheStore, skipped, written } from "./CacheStore"
import { decodeEntry } from "./decode"
import { contentHash, md5Base64, md5Hex, objectUnchanged, serializeEnvelope } from "./dedupe"
import { CacheEntryTooLarge, CacheObjectStoreError } from "./errors"
import { entryPath } from "./keys"
import type { ObjectClient } from "./ObjectClient"

/** Single-part PUT limit (interface "Limits": 5 MB, read as 5 MiB). */
export const OBJECT_STORE_MAX_BYTES = 5 * 1024 * 1024

export interface ObjectLocation {
  readonly scheme: "s3" | "gs" | "az" | "file"
  /** Bucket or container; empty for `file`. */
  readonly bucket: string
  /** Object-name prefix ending in `/` (or empty); for `file`, the absolute directory. */
  readonly prefix: string
}

/** Parses `s3://b/p/`, `gs://b/p/`, `az://c/p/`, `file:///abs/p/`; a message for anything else. */
export const parseObjectStoreUrl = (text: string): ObjectLocation | string => {
  const match = /^(s3|gs|az|file):\/\/([^/]*)(\/.*)?$/.exec(text.trim())
  if (match === null) return `unsupported object_store_url ${JSON.stringify(text)} (use s3://, gs://, az:// or file:///)`
  const scheme = match[1] as ObjectLocation["scheme"]
  const host = match[2] ?? ""
  const rest = match[3] ?? "/"
  if (scheme === "file") {
    if (host !== "" && host !== "localhost") return `file URL must be file:///absolute/path/ (got host ${JSON.stringify(host)})`
    return { scheme, bucket: "", prefix: decodeURIComponent(rest) }
  }
  if (host === "") return `object_store_url ${JSON.stringify(text)} has no bucket`
  const trimmed = rest.replace(/^\/+/, "").replace(/\/+$/, "")
  return { scheme, bucket: host, prefix: trimmed === "" ? "" : `${trimmed}/` }
}

/** The backend-neutral part: size limit, dedupe by HEAD, single-part PUT with MD5 + content-hash metadata. */
export const makeObjectStore = (
  location: ObjectLocation,
  connect: Effect.Effect<ObjectClient, CacheObjectStoreError>,
  backend: CacheBackend = "object_store"
): CacheStore => {
  const name = (key: Parameters<CacheStore["read"]>[0]) =>
    location.scheme === "file" ? entryPath(key) : `${location.prefix}${entryPath(key)}`
  const tag = <A, R>(effect: Effect.Effect<A, CacheObjectStoreError, R>) =>
    effect.pipe(Effect.mapError((e) => (e.backend === backend ? e : new CacheObjectStoreError({ ...e, backend }))))
  return {
    backend,
    read: (key) =>
      tag(connect.pipe(Effect.flatMap((client) => client.get(name(key))))).pipe(
        Effect.flatMap((text) => (Option.isNone(text) ? Effect.succeed(Option.none()) : Effect.asSome(decodeEntry(backend, text.value))))
      ),
    write: (key, envelope) =>
      Effect.gen(function* () {
        const body = serializeEnvelope(envelope)
        const bytes = Buffer.byteLength(body)
        if (bytes > OBJECT_STORE_MAX_BYTES) {
          return yield* new CacheEntryTooLarge({ backend, bytes, limit: OBJECT_STORE_MAX_BYTES })
        }
        const client = yield* tag(connect)
        const hash = contentHash(envelope)
        const facts = yield* tag(client.head(name(key)))
        if (Option.isSome(facts) && objectUnchanged(facts.value, md5Hex(body), hash)) return skipped
        yield* tag(client.put(name(key), body, { md5Base64: md5Base64(body), contentHash: hash }))
        return written(bytes)
      })
  }
}
