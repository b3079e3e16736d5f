import { describe, expect, it } from "vitest"
import fc from "fast-check"
import type { Envelope } from "../../src/schemas/discover"
import { contentHash, normalizeEtag, objectUnchanged, serializeEnvelope } from "../../src/services/DiscoverCache/dedupe"
import { accountHash, cacheKey, entryPath, kvKey } from "../../src/services/DiscoverCache/keys"
import { parseObjectStoreUrl } from "../../src/platform/ObjectStore/ObjectStore"
import { encodeSegment } from "../../src/services/EltApi/EltApi"
import { formatTimestamp, normalizeTimestamp } from "../../src/services/EltApi/envelope"
import { parseRetryAfter } from "../../src/services/EltApi/retryAfter"

const base: Envelope = {
  version: "1.0",
  fetched_at: "2026-03-01T10:00:00Z",
  destination: { id: "d1", region: "EU" },
  connectors: [
    { id: "b", name: "b", schema: "sb", service: "pg", status: { setup_state: "connected", sync_state: "scheduled" }, paused: false },
    { id: "a", name: "a", schema: "sa", service: "pg", status: { setup_state: "connected", sync_state: "syncing" }, paused: true }
  ],
  schemas: {
    b: { schemas: { s2: { enabled: true, tables: { t: { enabled: true, columns: { y: { enabled: true, hashed: false }, x: { enabled: false, hashed: true } } } } }, s1: { enabled: false, tables: {} } } },
    a: { schemas: {} }
  }
}

const shuffleKeys = <T extends Record<string, unknown>>(record: T, seed: number): T => {
  const keys = Object.keys(record)
  const rotated = keys.slice(seed % Math.max(1, keys.length)).concat(keys.slice(0, seed % Math.max(1, keys.length))).reverse()
  return Object.fromEntries(rotated.map((k) => [k, record[k]])) as T
}

describe("content hash (decisions.md 17)", () => {
  it("is 64 hex chars and ignores fetched_at", () => {
    const h = contentHash(base)
    expect(h).toMatch(/^[0-9a-f]{64}$/)
    expect(contentHash({ ...base, fetched_at: "2030-01-01T00:00:00.123Z" })).toBe(h)
  })

  it("is independent of map key order and connector order (property)", () => {
    fc.assert(
      fc.property(fc.nat(10), fc.boolean(), (seed, reverse) => {
        const permuted: Envelope = {
          ...base,
          connectors: reverse ? [...base.connectors].reverse() : base.connectors,
          schemas: shuffleKeys(
            Object.fromEntries(Object.entries(base.schemas).map(([k, v]) => [k, { schemas: shuffleKeys(v.schemas, seed) }])),
            seed
          )
        }
        expect(contentHash(permuted)).toBe(contentHash(base))
        expect(serializeEnvelope({ ...permuted })).toBe(serializeEnvelope(base))
      })
    )
  })

  it("changes with any content change (property over flags)", () => {
    fc.assert(
      fc.property(fc.boolean(), fc.boolean(), fc.string({ minLength: 1, maxLength: 8 }), (enabled, hashed, newName) => {
        const changed: Envelope = {
          ...base,
          schemas: { ...base.schemas, b: { schemas: { s2: { enabled: true, tables: { t: { enabled, columns: { y: { enabled: true, hashed } } } } } } } }
        }
        const renamed: Envelope = { ...base, destination: { ...base.destination, id: `d1${newName}` } }
        expect(contentHash(changed)).not.toBe(contentHash(base))
        expect(contentHash(renamed)).not.toBe(contentHash(base))
      })
    )
  })

  it("serializes compact JSON in the fixed field order, maps sorted", () => {
    const text = serializeEnvelope(base)
    expect(text.startsWith('{"version":"1.0","fetched_at":"2026-03-01T10:00:00Z","destination":{"id":"d1","region":"EU"},"connectors":[{"id":"a"')).toBe(true)
    expect(text).toContain('"schemas":{"a":{"schemas":{}},"b":{"schemas":{"s1"')
    expect(text).toContain('"columns":{"x":{"enabled":false,"hashed":true},"y"')
  })

  it("timestamps are canonical UTC with Z and fraction only when non-zero", () => {
    expect(formatTimestamp(Date.UTC(2026, 0, 2, 3, 4, 5))).toBe("2026-01-02T03:04:05Z")
    expect(formatTimestamp(Date.UTC(2026, 0, 2, 3, 4, 5, 250))).toBe("2026-01-02T03:04:05.250Z")
    expect(normalizeTimestamp("2026-01-02T04:04:05+01:00")).toBe("2026-01-02T03:04:05Z")
  })
})

describe("keys", () => {
  it("account_hash is the first 16 hex of SHA-256 of the API key", () => {
    expect(accountHash("abc")).toBe("ba7816bf8f01cfea")
    const key = cacheKey("abc", "dest.1/x")
    expect(kvKey(key)).toBe("elt-state:ba7816bf8f01cfea:dest.1/x")
    expect(entryPath(key)).toBe("ba7816bf8f01cfea/dest%2E1%2Fx.json")
  })

  it("path segments keep only unreserved characters", () => {
    expect(encodeSegment("a.b/c d~_-")).toBe("a%2Eb%2Fc%20d~_-")
    fc.assert(
      fc.property(fc.string(), (s) => {
        expect(encodeSegment(s)).toMatch(/^[A-Za-z0-9\-_~%]*$/)
      })
    )
  })
})

describe("object store dedupe (decisions.md 18)", () => {
  it("matches on ETag, stored MD5, or pcli-content-hash metadata", () => {
    expect(normalizeEtag('W/"ABC"')).toBe("abc")
    expect(objectUnchanged({ etag: '"abc"' }, "abc", "h")).toBe(true)
    expect(objectUnchanged({ md5Hex: "ABC" }, "abc", "h")).toBe(true)
    expect(objectUnchanged({ etag: '"opaque"', contentHash: "h" }, "abc", "h")).toBe(true)
    expect(objectUnchanged({ etag: '"opaque"', contentHash: "other" }, "abc", "h")).toBe(false)
  })

  it("parses the four URL schemes", () => {
    expect(parseObjectStoreUrl("s3://bkt/some/prefix/")).toEqual({ scheme: "s3", bucket: "bkt", prefix: "some/prefix/" })
    expect(parseObjectStoreUrl("gs://bkt")).toEqual({ scheme: "gs", bucket: "bkt", prefix: "" })
    expect(parseObjectStoreUrl("az://container/p")).toEqual({ scheme: "az", bucket: "container", prefix: "p/" })
    expect(parseObjectStoreUrl("file:///tmp/x/")).toEqual({ scheme: "file", bucket: "", prefix: "/tmp/x/" })
    expect(typeof parseObjectStoreUrl("http://x/y")).toBe("string")
    expect(typeof parseObjectStoreUrl("s3:///nobucket")).toBe("string")
  })
})

describe("Retry-After", () => {
  const now = Date.UTC(2026, 0, 1, 0, 0, 0)
  it("accepts seconds and future HTTP-dates, ignores the rest", () => {
    expect(parseRetryAfter("3", now)).toBe(3000)
    expect(parseRetryAfter(" 0 ", now)).toBe(0)
    expect(parseRetryAfter(new Date(now + 5000).toUTCString(), now)).toBe(5000)
    expect(parseRetryAfter(new Date(now - 5000).toUTCString(), now)).toBeUndefined()
    expect(parseRetryAfter("-1", now)).toBeUndefined()
    expect(parseRetryAfter("1.5", now)).toBeUndefined()
    expect(parseRetryAfter("soon", now)).toBeUndefined()
    expect(parseRetryAfter("", now)).toBeUndefined()
    expect(parseRetryAfter(undefined, now)).toBeUndefined()
  })
})
