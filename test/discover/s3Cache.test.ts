import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { backendContract } from "./contract"
import { eventTypes, type Harness, inflateUpstream, outputOf, startHarness } from "./harness"
import { freePort } from "../support/ports"
import { type S3Handle, startS3rver } from "../support/s3rver"
import { accountHash } from "../../src/services/DiscoverCache/keys"

let h: Harness
let s3: S3Handle

beforeAll(async () => {
  h = await startHarness()
  s3 = await startS3rver("pcli-cache")
  // The SDK's own configuration: endpoint, path-style, static credentials s3rver accepts.
  process.env.AWS_ENDPOINT_URL_S3 = s3.endpoint
  process.env.AWS_S3_FORCE_PATH_STYLE = "true"
  process.env.AWS_REGION = "us-east-1"
  process.env.AWS_ACCESS_KEY_ID = "S3RVER"
  process.env.AWS_SECRET_ACCESS_KEY = "S3RVER"
})
afterAll(async () => {
  await s3.stop()
  await h.close()
})

const block = () => ({ backend: "object_store", object_store_url: "s3://pcli-cache/elt/state/" })

describe("object_store backend (S3 via s3rver)", () => {
  backendContract({
    backend: "object_store",
    harness: () => h,
    block,
    writeMarker: async (apiKey) => String(s3.puts.filter((k) => k.includes(accountHash(apiKey))).length)
  })

  it("objects live under the URL prefix as <prefix><account_hash>/<destination_id>.json", async () => {
    const adapter = h.adapter({ apiKey: "s3-layout", cache: block() })
    outputOf(await h.run({ adapter }))
    expect(s3.puts).toContain(`elt/state/${accountHash("s3-layout")}/dest_main.json`)
  })

  it("an envelope over 5 MiB is refused by the object store (cache_write_failed), discover still succeeds", async () => {
    const adapter = h.adapter({ apiKey: "s3-huge", connectors: 100, cache: block() })
    inflateUpstream(h, "s3-huge")
    const before = s3.puts.length
    const r = await h.run({ adapter })
    expect(outputOf(r).sources.length).toBeGreaterThan(0)
    expect(eventTypes(r)).toEqual(["elt.cache_miss", "elt.cache_write_failed"])
    expect(String(r.events[1]?.fields.error)).toMatch(/caps a single-part PUT at 5242880 bytes/)
    expect(s3.puts.length).toBe(before)
  })

  it("object store port closed: discover succeeds over HTTP and emits cache_write_failed", async () => {
    const saved = process.env.AWS_ENDPOINT_URL_S3
    process.env.AWS_ENDPOINT_URL_S3 = `http://127.0.0.1:${await freePort()}`
    try {
      const adapter = h.adapter({ apiKey: "s3-down", cache: block() })
      const r = await h.run({ adapter })
      expect(outputOf(r).sources.length).toBeGreaterThan(0)
      expect(outputOf(r).cache).toEqual({ backend: "object_store", read: "read-failed", write: "failed" })
      expect(eventTypes(r)).toEqual(["elt.cache_miss", "elt.cache_write_failed"])
      expect(r.logs.some((l) => l.startsWith("WARN"))).toBe(true)
    } finally {
      process.env.AWS_ENDPOINT_URL_S3 = saved
    }
  })
})
