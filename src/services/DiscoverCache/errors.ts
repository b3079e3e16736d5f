import { Data } from "effect"
import type { CacheBackend } from "../../schemas/adapters"

/** Reading or writing the local filesystem failed. */
export class CacheIoError extends Data.TaggedError("CacheIoError")<{
  readonly backend: CacheBackend
  readonly detail: string
}> {
  readonly code = "cache-io"
  override get message() {
    return `cache I/O (${this.backend}): ${firstLine(this.detail)}`
  }
}

/** An object-store request failed (unreachable, refused, unexpected answer). */
export class CacheObjectStoreError extends Data.TaggedError("CacheObjectStoreError")<{
  readonly backend: CacheBackend
  readonly operation: "head" | "get" | "put" | "connect"
  readonly detail: string
}> {
  readonly code = "cache-object-store"
  override get message() {
    return `cache object store ${this.operation}: ${firstLine(this.detail)}`
  }
}

/** A key-value server command failed (unreachable, refused, timed out). */
export class CacheKvError extends Data.TaggedError("CacheKvError")<{
  readonly backend: CacheBackend
  readonly operation: "connect" | "get" | "set" | "expire"
  readonly detail: string
}> {
  readonly code = "cache-kv"
  override get message() {
    return `cache kv ${this.operation}: ${firstLine(this.detail)}`
  }
}

/** The serialized envelope exceeds the object store's single-part PUT limit. */
export class CacheEntryTooLarge extends Data.TaggedError("CacheEntryTooLarge")<{
  readonly backend: CacheBackend
  readonly bytes: number
  readonly limit: number
}> {
  readonly code = "cache-entry-too-large"
  override get message() {
    return `envelope is ${this.bytes} bytes; the object-store backend caps a single-part PUT at ${this.limit} bytes`
  }
}

/** A cached entry exists but is not a valid envelope. */
export class CacheEntryCorrupt extends Data.TaggedError("CacheEntryCorrupt")<{
  readonly backend: CacheBackend
  readonly detail: string
}> {
  readonly code = "cache-entry-corrupt"
  override get message() {
    return `cache entry (${this.backend}) is not a valid envelope: ${firstLine(this.detail)}`
  }
}

/** The `[adapter.<name>.cache]` block cannot build a backend; this one is NOT fail-open. */
export class CacheConfigInvalid extends Data.TaggedError("CacheConfigInvalid")<{
  readonly adapter: string
  readonly backend: CacheBackend
  readonly detail: string
}> {
  readonly code = "cache-config-invalid"
  override get message() {
    return `[adapter.${this.adapter}.cache] backend ${this.backend}: ${this.detail}`
  }
}

export type CacheError = CacheIoError | CacheObjectStoreError | CacheKvError | CacheEntryTooLarge | CacheEntryCorrupt

const firstLine = (text: string) => (text.split("\n")[0] ?? "").slice(0, 300)
