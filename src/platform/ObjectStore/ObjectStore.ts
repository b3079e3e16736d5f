import { FileSystem, Path } from "@effect/platform"
import { type ConfigError, Data, Effect, Option, Scope } from "effect"
import { createHash } from "node:crypto"

/**
 * One object store behind a URL: `s3://bucket/prefix/`, `gs://bucket/prefix/`,
 * `az://container/prefix/` or `file:///absolute/dir/`. Keys are relative to the URL's
 * prefix. The cloud SDKs are imported on first use, never on the start-up path.
 */
export interface ObjectStore {
  /** The URL the store was built from (shown in errors). */
  readonly location: string
  /** Facts about an object, `None` when there is none. */
  readonly head: (key: string) => Effect.Effect<Option.Option<ObjectFacts>, ObjectStoreError>
  readonly get: (key: string) => Effect.Effect<Option.Option<Uint8Array>, ObjectStoreError>
  /** Writes (or replaces) an object in one single-part request, with its MD5 for the server to verify. */
  readonly put: (key: string, body: string | Uint8Array, options?: PutOptions) => Effect.Effect<void, ObjectStoreError>
  /** Creates the object only if none exists under the key; false (nothing written) if one did. */
  readonly putIfAbsent: (key: string, body: string | Uint8Array, options?: PutOptions) => Effect.Effect<boolean, ObjectStoreError>
  /** Keys starting with `prefix`, sorted. */
  readonly list: (prefix: string) => Effect.Effect<ReadonlyArray<string>, ObjectStoreError>
}

/** What a store says about an existing object. */
export interface ObjectFacts {
  readonly etag?: string | undefined
  /** MD5 of the stored bytes, lowercase hex, when the provider states it (S3 single-part ETag, GCS md5Hash, Azure Content-MD5, file). */
  readonly md5Hex?: string | undefined
  readonly size?: number | undefined
  /** User metadata; names are lowercase `[a-z0-9-]`. */
  readonly metadata: Readonly<Record<string, string>>
}

export interface PutOptions {
  readonly contentType?: string
  /** Names must be lowercase `[a-z0-9-]` (Azure stores `-` as `_`; it reads back as `-`). */
  readonly metadata?: Readonly<Record<string, string>>
}

export type ObjectOperation = "connect" | "head" | "get" | "put" | "list"

/** A request to the store failed: unreachable, refused, no credentials, or an unexpected answer. */
export class ObjectStoreError extends Data.TaggedError("ObjectStoreError")<{
  readonly location: string
  readonly operation: ObjectOperation
  readonly key?: string | undefined
  readonly detail: string
}> {
  readonly code = "object-store-failed"
  override get message() {
    return `object store ${this.location}: ${this.operation}${this.key === undefined ? "" : ` ${this.key}`} failed: ${firstLine(this.detail)}`
  }
}

/** The URL names no store this tool can reach. */
export class ObjectStoreUrlInvalid extends Data.TaggedError("ObjectStoreUrlInvalid")<{
  readonly url: string
  readonly detail: string
}> {
  readonly code = "object-store-url-invalid"
  override get message() {
    return this.detail
  }
}

export const firstLine = (text: string): string => (text.split("\n")[0] ?? "").slice(0, 300)

export const describe = (e: unknown): string => (e instanceof Error ? `${e.name}: ${e.message}` : String(e))

export interface ObjectLocation {
  readonly scheme: "s3" | "gs" | "az" | "file"
  /** Bucket or container; empty for `file`. */
  readonly bucket: string
  /** Object-name prefix ending in `/` (or empty); for `file`, the absolute directory. */
  readonly prefix: string
}

/** Parses `s3://b/p/`, `gs://b/p/`, `az://c/p/`, `file:///abs/p/`; a message (naming the URL as `label`) for anything else. */
export const parseObjectStoreUrl = (text: string, label = "object store URL"): ObjectLocation | string => {
  const match = /^(s3|gs|az|file):\/\/([^/]*)(\/.*)?$/.exec(text.trim())
  if (match === null) return `unsupported ${label} ${JSON.stringify(text)} (use s3://, gs://, az:// or file:///)`
  const scheme = match[1] as ObjectLocation["scheme"]
  const host = match[2] ?? ""
  const rest = match[3] ?? "/"
  if (scheme === "file") {
    if (host !== "" && host !== "localhost") return `file URL must be file:///absolute/path/ (got host ${JSON.stringify(host)})`
    return { scheme, bucket: "", prefix: decodeURIComponent(rest) }
  }
  if (host === "") return `${label} ${JSON.stringify(text)} has no bucket`
  const trimmed = rest.replace(/^\/+/, "").replace(/\/+$/, "")
  return { scheme, bucket: host, prefix: trimmed === "" ? "" : `${trimmed}/` }
}

export const md5Hex = (bytes: string | Uint8Array): string => createHash("md5").update(bytes).digest("hex")
export const md5Base64 = (bytes: string | Uint8Array): string => createHash("md5").update(bytes).digest("base64")

/** ETag as compared to an MD5: without `W/`, quotes, lowercase. */
export const normalizeEtag = (etag: string): string => etag.trim().replace(/^W\//i, "").replace(/"/g, "").toLowerCase()

/** An S3 single-part ETag is the hex MD5 of the body; multipart (`…-N`) and opaque ETags are not. */
export const md5FromEtag = (etag: string | undefined): string | undefined => {
  if (etag === undefined) return undefined
  const normalized = normalizeEtag(etag)
  return /^[0-9a-f]{32}$/.test(normalized) ? normalized : undefined
}

export const toBytes = (body: string | Uint8Array): Uint8Array => (typeof body === "string" ? new TextEncoder().encode(body) : body)

/** `get` as UTF-8 text. */
export const getText = (store: ObjectStore, key: string): Effect.Effect<Option.Option<string>, ObjectStoreError> =>
  Effect.map(store.get(key), Option.map((bytes) => new TextDecoder().decode(bytes)))

/** One provider's calls on full object names (bucket-relative); `fromUrl` adds the prefix and key checks. */
export interface ProviderClient {
  readonly head: (name: string) => Effect.Effect<Option.Option<ObjectFacts>, ObjectStoreError>
  readonly get: (name: string) => Effect.Effect<Option.Option<Uint8Array>, ObjectStoreError>
  /** `ifAbsent`: create-only; resolves false when the object already existed. */
  readonly put: (name: string, body: Uint8Array, request: PutRequest) => Effect.Effect<boolean, ObjectStoreError>
  readonly list: (prefix: string) => Effect.Effect<ReadonlyArray<string>, ObjectStoreError>
}

export interface PutRequest {
  readonly contentType: string
  readonly md5Base64: string
  readonly metadata: Readonly<Record<string, string>>
  readonly ifAbsent: boolean
}

/** Makes a provider's error constructor for one store location. */
export const failWith =
  (location: string) =>
  (operation: ObjectOperation, key?: string) =>
  (e: unknown): ObjectStoreError =>
    new ObjectStoreError({ location, operation, key, detail: describe(e) })

/** One SDK call as an Effect; a rejection becomes an `ObjectStoreError`. */
export const sdkCall = <A>(fail: (e: unknown) => ObjectStoreError, f: () => Promise<A>) => Effect.tryPromise({ try: f, catch: fail })

/** A lookup: the provider's "no such object" answer is `None`; other failures stay errors. */
export const sdkLookup = <A>(fail: (e: unknown) => ObjectStoreError, f: () => Promise<A>, isNotFound: (e: unknown) => boolean) =>
  sdkCall(fail, () =>
    f().then(Option.some, (e: unknown) => {
      if (isNotFound(e)) return Option.none<A>()
      throw e
    })
  )

const badSegments = (segments: ReadonlyArray<string>) => segments.some((s) => s === "" || s === "." || s === "..")
const badKey = (key: string): boolean => key === "" || key.startsWith("/") || badSegments(key.split("/"))
/** A listing prefix may end in `/` or mid-name, but may not climb out of the store either. */
const badPrefix = (prefix: string): boolean => prefix !== "" && (prefix.startsWith("/") || badSegments(prefix.split("/").slice(0, -1)) || /^\.\.?$/.test(prefix.split("/").pop()!))

type ProviderFactory = (
  location: ObjectLocation,
  url: string
) => Effect.Effect<ProviderClient, ObjectStoreError | ConfigError.ConfigError, Scope.Scope | FileSystem.FileSystem | Path.Path>

const providerFor = (scheme: ObjectLocation["scheme"]): Effect.Effect<ProviderFactory> =>
  Effect.promise(async (): Promise<ProviderFactory> => {
    // Each provider module (and its SDK) loads only when a store of that scheme is used.
    switch (scheme) {
      case "s3":
        return (await import("./s3")).makeS3Provider
      case "gs":
        return (await import("./gcs")).makeGcsProvider
      case "az":
        return (await import("./azure")).makeAzureProvider
      case "file":
        return (await import("./file")).makeFileProvider
    }
  })

/**
 * Builds the store for `url`. Nothing is contacted here: the provider (SDK, credentials,
 * endpoint) is set up on the first operation, once, and torn down when the scope closes.
 */
export const fromUrl = (
  url: string
): Effect.Effect<ObjectStore, ObjectStoreUrlInvalid, Scope.Scope | FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function* () {
    const location = parseObjectStoreUrl(url)
    if (typeof location === "string") return yield* new ObjectStoreUrlInvalid({ url, detail: location })
    const scope = yield* Effect.scope
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const fail = failWith(url)
    const connect = yield* Effect.cached(
      providerFor(location.scheme).pipe(
        Effect.flatMap((make) => make(location, url)),
        Effect.provideService(FileSystem.FileSystem, fs),
        Effect.provideService(Path.Path, path),
        Scope.extend(scope),
        // A missing SDK or a bad credential variable is a connect failure, reported per operation.
        Effect.catchAllDefect((d) => Effect.fail(fail("connect")(d))),
        Effect.mapError((e) => (e._tag === "ObjectStoreError" ? e : fail("connect")(e)))
      )
    )
    const name = (key: string) => (location.scheme === "file" ? key : `${location.prefix}${key}`)
    const withKey = <A>(operation: ObjectOperation, key: string, use: (client: ProviderClient, name: string) => Effect.Effect<A, ObjectStoreError>) =>
      badKey(key)
        ? Effect.fail(new ObjectStoreError({ location: url, operation, key, detail: "invalid object key (empty, absolute, or a . or .. segment)" }))
        : Effect.flatMap(connect, (client) => use(client, name(key)))
    const write = (key: string, body: string | Uint8Array, options: PutOptions | undefined, ifAbsent: boolean) => {
      const bytes = toBytes(body)
      const request: PutRequest = {
        contentType: options?.contentType ?? "application/octet-stream",
        md5Base64: md5Base64(bytes),
        metadata: options?.metadata ?? {},
        ifAbsent
      }
      return withKey("put", key, (client, n) => client.put(n, bytes, request))
    }
    const store: ObjectStore = {
      location: url,
      head: (key) => withKey("head", key, (client, n) => client.head(n)),
      get: (key) => withKey("get", key, (client, n) => client.get(n)),
      put: (key, body, options) => Effect.asVoid(write(key, body, options, false)),
      putIfAbsent: (key, body, options) => write(key, body, options, true),
      list: (prefix) =>
        (badPrefix(prefix)
          ? Effect.fail(new ObjectStoreError({ location: url, operation: "list", key: prefix, detail: "invalid listing prefix (absolute, or a . or .. segment)" }))
          : Effect.flatMap(connect, (client) => client.list(name(prefix)))
        ).pipe(
          Effect.map((names) =>
            names
              .map((n) => (location.scheme === "file" ? n : n.slice(location.prefix.length)))
              .filter((k) => k.startsWith(prefix))
              .sort()
          )
        )
    }
    return store
  })
