import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { accountHash } from "../../src/services/DiscoverCache/keys"
import { type GcsEmulator, startGcsEmulator } from "../support/gcsEmulator"
import { freePort } from "../support/ports"
import { backendContract } from "./contract"
import { eventTypes, type Harness, outputOf, startHarness } from "./harness"

let h: Harness
let gcs: GcsEmulator

beforeAll(async () => {
  h = await startHarness()
  gcs = await startGcsEmulator(["pcli-gcs"])
  // The library's own emulator switch (no credentials are used against it).
  process.env.STORAGE_EMULATOR_HOST = gcs.host
})
afterAll(async () => {
  await gcs.close()
  await h.close()
})

const block = () => ({ backend: "object_store", object_store_url: "gs://pcli-gcs/cache/" })

describe("object_store backend (GCS via the JSON-API emulator)", () => {
  backendContract({
    backend: "object_store",
    harness: () => h,
    block,
    writeMarker: async (apiKey) => String(gcs.inserts.filter((k) => k.includes(accountHash(apiKey))).length)
  })

  it("stores md5Hash and pcli-content-hash metadata; the emulator saw only known routes", async () => {
    const adapter = h.adapter({ apiKey: "gcs-meta", cache: block() })
    outputOf(await h.run({ adapter }))
    const stored = gcs.objects.get(`pcli-gcs/cache/${accountHash("gcs-meta")}/dest_main.json`)
    expect(stored?.metadata["pcli-content-hash"]).toMatch(/^[0-9a-f]{64}$/)
    expect(gcs.unhandled).toEqual([])
  })

  it("GCS endpoint down: discover succeeds over HTTP and emits cache_write_failed", async () => {
    const saved = process.env.STORAGE_EMULATOR_HOST
    process.env.STORAGE_EMULATOR_HOST = `http://127.0.0.1:${await freePort()}`
    try {
      const r = await h.run({ adapter: h.adapter({ apiKey: "gcs-down", cache: block() }) })
      expect(outputOf(r).sources.length).toBeGreaterThan(0)
      expect(eventTypes(r)).toEqual(["elt.cache_miss", "elt.cache_write_failed"])
    } finally {
      process.env.STORAGE_EMULATOR_HOST = saved
    }
  })
})
