import { Redis } from "ioredis"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { cacheKey, kvKey } from "../../src/services/DiscoverCache/keys"
import { freePort } from "../support/ports"
import { ensureRedis, type RedisHandle, spawnRedis } from "../support/redis"
import { backendContract } from "./contract"
import { eventTypes, type Harness, outputOf, startHarness } from "./harness"

let h: Harness
let redis: RedisHandle
let client: Redis
let monitor: Awaited<ReturnType<Redis["monitor"]>>
/** SET commands seen by MONITOR, per key. */
const sets = new Map<string, number>()
const echoes = new Set<string>()

beforeAll(async () => {
  h = await startHarness()
  redis = await ensureRedis()
  client = new Redis(redis.url)
  monitor = await new Redis(redis.url).monitor()
  monitor.on("monitor", (_time: string, args: Array<string>) => {
    const [command, key] = args
    if (command?.toLowerCase() === "set" && key !== undefined) sets.set(key, (sets.get(key) ?? 0) + 1)
    if (command?.toLowerCase() === "echo" && key !== undefined) echoes.add(key)
  })
})
afterAll(async () => {
  monitor.disconnect()
  client.disconnect()
  await redis.stop()
  await h.close()
})

/** Waits until MONITOR has relayed everything sent before now (a marker ECHO round trip). */
const settleMonitor = async () => {
  const marker = `settle-${Math.random()}`
  await client.echo(marker)
  while (!echoes.has(marker)) await new Promise((r) => setTimeout(r, 5))
}

const block = (extra: Record<string, unknown> = {}) => ({ backend: "kv", kv_url: redis.url, ...extra })

describe("kv backend (Redis)", () => {
  backendContract({
    backend: "kv",
    harness: () => h,
    block: () => block(),
    writeMarker: async (apiKey, dest) => {
      await settleMonitor()
      return String(sets.get(kvKey(cacheKey(apiKey, dest))) ?? 0)
    }
  })

  it("key elt-state:<account_hash>:<destination_id>, TTL on every SET, a dedupe skip refreshes the TTL", async () => {
    const adapter = h.adapter({ apiKey: `kv-ttl-${Date.now()}`, cache: block({ kv_ttl_seconds: 900 }) })
    outputOf(await h.run({ adapter }))
    const key = kvKey(cacheKey(adapter.api_key, adapter.destination_id))
    expect(key).toMatch(/^elt-state:[0-9a-f]{16}:dest_main$/)
    const ttl = await client.ttl(key)
    expect(ttl).toBeGreaterThan(800)
    expect(ttl).toBeLessThanOrEqual(900)
    await client.expire(key, 5)
    const skipped = await h.run({ adapter, noCache: true })
    expect(eventTypes(skipped)).toEqual(["elt.cache_miss", "elt.cache_write_skipped"])
    expect(await client.ttl(key)).toBeGreaterThan(800)
  })

  it("default TTL is 600 s", async () => {
    const adapter = h.adapter({ apiKey: `kv-default-ttl-${Date.now()}`, cache: block() })
    outputOf(await h.run({ adapter }))
    const ttl = await client.ttl(kvKey(cacheKey(adapter.api_key, adapter.destination_id)))
    expect(ttl).toBeGreaterThan(590)
    expect(ttl).toBeLessThanOrEqual(600)
  })

  it("nothing listening on the kv port: discover succeeds over HTTP, miss + cache_write_failed + warning", async () => {
    const port = await freePort()
    const adapter = h.adapter({ apiKey: "kv-closed", cache: { backend: "kv", kv_url: `redis://:hunter2pw@127.0.0.1:${port}` } })
    const r = await h.run({ adapter })
    const out = outputOf(r)
    expect(out.sources.length).toBeGreaterThan(0)
    expect(out.cache).toEqual({ backend: "kv", read: "read-failed", write: "failed" })
    expect(eventTypes(r)).toEqual(["elt.cache_miss", "elt.cache_write_failed"])
    expect(String(r.events[1]?.fields.error)).toMatch(/cache kv connect/)
    expect(r.logs.filter((l) => l.startsWith("WARN")).length).toBeGreaterThanOrEqual(2)
    // The password in kv_url never shows up anywhere.
    const everything = JSON.stringify([out, r.events, r.logs, r.spans.map((s) => [s.attributes, s.events])])
    expect(everything).not.toContain("hunter2pw")
  })

  it("Redis stopped after it held the entry: discover still succeeds over HTTP", async () => {
    const own = await spawnRedis()
    const adapter = h.adapter({ apiKey: "kv-stopped", cache: { backend: "kv", kv_url: own.url } })
    outputOf(await h.run({ adapter }))
    await own.stop()
    const r = await h.run({ adapter })
    expect(r.apiCalls).toBeGreaterThan(0)
    expect(outputOf(r).sources.length).toBeGreaterThan(0)
    expect(eventTypes(r)).toEqual(["elt.cache_miss", "elt.cache_write_failed"])
  })
})
