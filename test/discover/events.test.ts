import * as fs from "node:fs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { eventTypes, type Harness, outputOf, startHarness, tmpDir } from "./harness"

let h: Harness
const root = tmpDir("events")
beforeAll(async () => {
  h = await startHarness()
})
afterAll(async () => {
  await h.close()
  fs.rmSync(root, { recursive: true, force: true })
})

const discoverSpan = (r: Awaited<ReturnType<Harness["run"]>>) => {
  const span = r.spans.find((s) => s.name === "pcli.discover")
  if (span === undefined) throw new Error(`no pcli.discover span among ${r.spans.map((s) => s.name).join(", ")}`)
  return span
}

describe("cache events: in-process bus and span events", () => {
  it("miss/write then hit appear on the bus and as span events named elt.* with pcli.<field> attributes", async () => {
    const adapter = h.adapter({ apiKey: "events-key", cache: { backend: "file", file_root: root } })
    const cold = await h.run({ adapter })
    const out = outputOf(cold)
    const key = `${out.account_hash}/dest_main`
    expect(cold.events.map((e) => [e.event_type, e.fields])).toEqual([
      ["elt.cache_miss", { backend: "file", key, reason: "no-entry" }],
      ["elt.cache_write", { backend: "file", key, bytes: expect.any(Number), outcome: "written" }]
    ])
    const coldSpan = discoverSpan(cold)
    expect(coldSpan.events.map((e) => e.name)).toEqual(["elt.cache_miss", "elt.cache_write"])
    expect(coldSpan.events[0]?.attributes).toEqual({ "pcli.backend": "file", "pcli.key": key, "pcli.reason": "no-entry" })
    expect(coldSpan.events[1]?.attributes?.["pcli.bytes"]).toBe(cold.events[1]?.fields.bytes)
    expect(coldSpan.attributes["pcli.adapter"]).toBe("elt_main")

    const warm = await h.run({ adapter })
    expect(eventTypes(warm)).toEqual(["elt.cache_hit"])
    const hit = discoverSpan(warm).events[0]
    expect(hit?.name).toBe("elt.cache_hit")
    expect(hit?.attributes).toEqual({ "pcli.backend": "file", "pcli.key": key, "pcli.age_seconds": expect.any(Number) })
    expect(Number(hit?.attributes?.["pcli.age_seconds"])).toBeGreaterThanOrEqual(0)
    // The cold fetch has its own child span; the warm run made none.
    expect(cold.spans.some((s) => s.name === "pcli.elt.fetch_envelope")).toBe(true)
    expect(warm.spans.some((s) => s.name === "pcli.elt.fetch_envelope")).toBe(false)
  })

  it("skipped and failed writes are span events too", async () => {
    const adapter = h.adapter({ apiKey: "events-skip", cache: { backend: "file", file_root: root } })
    outputOf(await h.run({ adapter }))
    const skip = await h.run({ adapter, noCache: true })
    expect(discoverSpan(skip).events.map((e) => e.name)).toEqual(["elt.cache_miss", "elt.cache_write_skipped"])
    expect(discoverSpan(skip).events[1]?.attributes?.["pcli.reason"]).toBe("hash-match")

    const blocker = `${root}/file-not-dir`
    fs.writeFileSync(blocker, "")
    const failed = await h.run({ adapter: h.adapter({ apiKey: "events-fail", cache: { backend: "file", file_root: blocker } }) })
    const failedEvent = discoverSpan(failed).events.find((e) => e.name === "elt.cache_write_failed")
    expect(String(failedEvent?.attributes?.["pcli.error"])).toMatch(/^cache I\/O \(file\)/)
  })

  it("secrets never reach output, events, logs or spans", async () => {
    const adapter = h.adapter({ apiKey: "events-secret", cache: { backend: "file", file_root: root } })
    const r = await h.run({ adapter, noCache: true })
    const secret = h.emulator.tenants.get("events-secret")?.apiSecret ?? "missing"
    const everything = JSON.stringify([r.output, r.events, r.logs, r.spans.map((s) => [s.name, s.attributes, s.events])])
    expect(everything).not.toContain(secret)
    expect(everything).not.toContain(Buffer.from(`events-secret:${secret}`).toString("base64"))
  })
})
