import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { accountHash } from "../../src/services/DiscoverCache/keys"
import { backendContract } from "./contract"
import { eventTypes, type Harness, inflateUpstream, outputOf, startHarness, tmpDir } from "./harness"

let h: Harness
const root = tmpDir("file-cache")
beforeAll(async () => {
  h = await startHarness()
})
afterAll(async () => {
  await h.close()
  fs.rmSync(root, { recursive: true, force: true })
})

const entryFile = (apiKey: string, destinationId: string) => path.join(root, accountHash(apiKey), `${destinationId}.json`)

describe("file backend", () => {
  backendContract({
    backend: "file",
    harness: () => h,
    block: () => ({ backend: "file", file_root: root }),
    writeMarker: async (apiKey, dest) => {
      const st = fs.statSync(entryFile(apiKey, dest))
      return `${st.mtimeMs}:${st.ino}`
    }
  })

  it("stores compact JSON at <file_root>/<account_hash>/<destination_id>.json, no staged file left", async () => {
    const adapter = h.adapter({ apiKey: "file-layout", cache: { backend: "file", file_root: root } })
    outputOf(await h.run({ adapter }))
    const file = entryFile("file-layout", adapter.destination_id)
    const text = fs.readFileSync(file, "utf8")
    expect(text.startsWith('{"version":"1.0","fetched_at":"')).toBe(true)
    expect(fs.readdirSync(path.dirname(file))).toEqual([path.basename(file)])
    expect(accountHash("file-layout")).toMatch(/^[0-9a-f]{16}$/)
  })

  it("a corrupt entry is a miss (read failed), refetched and overwritten", async () => {
    const adapter = h.adapter({ apiKey: "file-corrupt", cache: { backend: "file", file_root: root } })
    const file = entryFile("file-corrupt", adapter.destination_id)
    fs.mkdirSync(path.dirname(file), { recursive: true })
    fs.writeFileSync(file, "{not json")
    const r = await h.run({ adapter })
    expect(outputOf(r).cache).toEqual({ backend: "file", read: "read-failed", write: "written" })
    expect(eventTypes(r)).toEqual(["elt.cache_miss", "elt.cache_write"])
    expect(r.logs.some((l) => l.startsWith("WARN") && l.includes("cache read failed"))).toBe(true)
  })

  it("an unwritable root fails open: discover succeeds over HTTP and emits cache_write_failed", async () => {
    const blocker = path.join(root, "not-a-dir")
    fs.writeFileSync(blocker, "x")
    const adapter = h.adapter({ apiKey: "file-broken", cache: { backend: "file", file_root: blocker } })
    const r = await h.run({ adapter })
    const out = outputOf(r)
    expect(out.sources.length).toBeGreaterThan(0)
    expect(out.cache.write).toBe("failed")
    expect(eventTypes(r)).toContain("elt.cache_write_failed")
    expect(r.logs.some((l) => l.startsWith("WARN") && l.includes("cache write failed"))).toBe(true)
  })

  it("the 5 MiB limit is the object store's only: the file backend stores a larger envelope", async () => {
    const adapter = h.adapter({ apiKey: "file-huge", connectors: 100, cache: { backend: "file", file_root: root } })
    inflateUpstream(h, "file-huge")
    const r = await h.run({ adapter })
    expect(eventTypes(r)).toEqual(["elt.cache_miss", "elt.cache_write"])
    expect(Number(r.events[1]?.fields.bytes)).toBeGreaterThan(5 * 1024 * 1024)
  })

  it("backend none: no cache events, API every time", async () => {
    const adapter = h.adapter({ apiKey: "file-none" })
    const r1 = await h.run({ adapter })
    const r2 = await h.run({ adapter })
    expect(r1.events).toEqual([])
    expect(r2.apiCalls).toBeGreaterThan(0)
    expect(outputOf(r2).cache).toEqual({ backend: "none", read: "disabled" })
  })
})
