import type { Effect, Option } from "effect"
import type { CacheBackend } from "../../schemas/adapters"
import type { Envelope } from "../../schemas/discover"
import type { CacheError } from "./errors"
import type { CacheKey } from "./keys"

export type WriteResult = { readonly _tag: "Written"; readonly bytes: number } | { readonly _tag: "Skipped" }

export const written = (bytes: number): WriteResult => ({ _tag: "Written", bytes })
export const skipped: WriteResult = { _tag: "Skipped" }

/** One opened cache backend. Every operation fails with a typed `CacheError`; callers decide to fail open. */
export interface CacheStore {
  readonly backend: CacheBackend
  /** `None` is a clean miss. */
  readonly read: (key: CacheKey) => Effect.Effect<Option.Option<Envelope>, CacheError>
  /** Writes unless the stored content hash already matches. */
  readonly write: (key: CacheKey, envelope: Envelope) => Effect.Effect<WriteResult, CacheError>
}
