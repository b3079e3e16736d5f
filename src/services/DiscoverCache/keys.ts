import { createHash } from "node:crypto"
import { encodeSegment } from "../EltApi/EltApi"

/** First 16 hex chars of SHA-256 of the API key (never of the secret). */
export const accountHash = (apiKey: string): string => createHash("sha256").update(apiKey, "utf8").digest("hex").slice(0, 16)

export interface CacheKey {
  readonly accountHash: string
  readonly destinationId: string
}

export const cacheKey = (apiKey: string, destinationId: string): CacheKey => ({
  accountHash: accountHash(apiKey),
  destinationId
})

/** The key reported in events: `<account_hash>/<destination_id>`. */
export const logicalKey = (key: CacheKey): string => `${key.accountHash}/${key.destinationId}`

/** File or object name of an entry; the id is percent-encoded so it stays one path segment. */
export const entryPath = (key: CacheKey): string => `${key.accountHash}/${encodeSegment(key.destinationId)}.json`

/** decisions.md 19. */
export const kvKey = (key: CacheKey): string => `elt-state:${key.accountHash}:${key.destinationId}`
