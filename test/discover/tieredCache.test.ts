import * as fs from "node:fs"
import * as path from "node:path"
import { Redis } from "ioredis"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { accountHash, cacheKey, kvKey } from "../../src/services/DiscoverCache/keys"
import { freePort } from "../support/ports"
import { ensureRedis, type RedisHandle } from "../support/redis"
import { backendContract } from "./contract"
import { eventTypes, type Harness, outputOf, startHarness, tmpDir } from "./harness"

let h: Harness
let redis: RedisHandle
let client: Redis
const objects = tmpDir("tiered-objects")
const localObjects = tmpDir("file-objects")

beforeAll(async () => {
  h = await startHarness()
  redis = await ensureRedis()
  client = new Redis(redis.url)
})
afterAll(async () => {
  client.disconnect()
  await redis.stop()
  await h.close()
  fs.rmSync(objects, { recursive: true, force: true })
  fs.rmSync(localObjects, { recursive: true, force: true })
})

const objectFile = (root: string, apiKey: string, dest = "dest_main") => path.join(root, accountHash(apiKey), `${dest}.json`)
const tiered = (kvUrl = redis.url) => ({ backend: "tiered", object_store_url: `file://${objects}/`, kv_url: kvUrl })

describe("object_store backend over file:///", () => {
  backendContract({
    backend: "object_store",
    harness: () => h,
    block: () => ({ backend: "object_store", object_store_url: `file://${localObjects}/` }),
    writeMarker: async (apiKey, dest) => {
      const st = fs.statSync(objectFile(localObjects, apiKey, dest))
      return `${st.mtimeMs}:${st.ino}`
    }
  })
})

describe("tiered backend (Redis in front of file:/// objects)", () => {
  backendContract({
    backend: "tiered",
    harness: () => h,
    block: () => tiered(),
    writeMarker: async (apiKey, dest) => {
      const st = fs.statSync(objectFile(objects, apiKey, dest))
      const ttl = await client.ttl(kvKey(cacheKey(apiKey, dest)))
      return `${st.mtimeMs}:${st.ino}:${(await client.get(kvKey(cacheKey(apiKey, dest))))?.length}:${ttl > 0}`
    }
  })

  it("a kv miss falls through to the object store (no API call) and back-fills kv", async () => {
    const adapter = h.adapter({ apiKey: `tiered-fall-${Date.now()}`, cache: tiered() })
    outputOf(await h.run({ adapter }))
    const key = kvKey(cacheKey(adapter.api_key, adapter.destination_id))
    expect(await client.exists(key)).toBe(1)
    await client.del(key)
    const r = await h.run({ adapter })
    expect(r.apiCalls).toBe(0)
    expect(eventTypes(r)).toEqual(["elt.cache_hit"])
    expect(r.events[0]?.fields.backend).toBe("tiered")
    expect(await client.exists(key)).toBe(1)
    expect(await client.ttl(key)).toBeGreaterThan(500)
  })

  it("kv down: reads fall through to the object store; the write reports cache_write_failed; discover succeeds", async () => {
    const adapter = h.adapter({ apiKey: `tiered-kvdown-${Date.now()}`, cache: tiered() })
    outputOf(await h.run({ adapter }))
    const down = { ...adapter, cache: { ...tiered(`redis://127.0.0.1:${await freePort()}`) } }
    const hit = await h.run({ adapter: h.adapter({ apiKey: adapter.api_key, cache: down.cache }) })
    expect(hit.apiCalls).toBe(0)
    expect(eventTypes(hit)).toEqual(["elt.cache_hit"])
    const forced = await h.run({ adapter: h.adapter({ apiKey: adapter.api_key, cache: down.cache }), noCache: true })
    expect(outputOf(forced).sources.length).toBeGreaterThan(0)
    expect(eventTypes(forced)).toEqual(["elt.cache_miss", "elt.cache_write_failed"])
  })
})
