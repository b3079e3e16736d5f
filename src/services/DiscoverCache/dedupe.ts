import { blake3Hex } from "../../platform/blake3"
import { normalizeEtag } from "../../platform/ObjectStore/ObjectStore"
import type { Envelope } from "../../schemas/discover"
import { normalizeEnvelope } from "../EltApi/envelope"

/** The bytes every backend stores: compact JSON, fixed key order, sorted maps, `fetched_at` kept. */
export const serializeEnvelope = (envelope: Envelope): string => JSON.stringify(normalizeEnvelope(envelope))

/** Hex BLAKE3 of the compact JSON with `fetched_at` removed (decisions.md 17). */
export const contentHash = (envelope: Envelope): string => {
  const { fetched_at: _ignored, ...rest } = normalizeEnvelope(envelope)
  return blake3Hex(new TextEncoder().encode(JSON.stringify(rest)))
}

export { normalizeEtag }

/** What the cache compares before a PUT (from the store's facts and its `pcli-content-hash` metadata). */
export interface ObjectFacts {
  readonly etag?: string | undefined
  /** Stored MD5 of the body, hex (S3 single-part ETag, Azure Content-MD5, GCS md5Hash). */
  readonly md5Hex?: string | undefined
  /** Our `pcli-content-hash` metadata. */
  readonly contentHash?: string | undefined
}

/** decisions.md 18: skip when ETag or stored MD5 equals the new bytes' MD5, or the metadata hash equals the new content hash. */
export const objectUnchanged = (facts: ObjectFacts, newMd5Hex: string, newContentHash: string): boolean =>
  (facts.etag !== undefined && normalizeEtag(facts.etag) === newMd5Hex) ||
  (facts.md5Hex !== undefined && facts.md5Hex.toLowerCase() === newMd5Hex) ||
  (facts.contentHash !== undefined && facts.contentHash === newContentHash)
