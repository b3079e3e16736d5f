/** The behaviours every cache backend must show, run against a real backend per test file. */
import { expect, it } from "vitest"
import type { CacheBlock } from "../../src/schemas/adapters"
import { changeUpstream, eventTypes, type Harness, outputOf } from "./harness"

export interface BackendFixture {
  readonly harness: () => Harness
  readonly block: () => CacheBlock | Record<string, unknown>
  readonly backend: string
  /** Changes iff an entry for this api key was (re)written in the backend since the last call. */
  readonly writeMarker: (apiKey: string, destinationId: string) => Promise<string>
}

export const backendContract = (f: BackendFixture) => {
  const keyOf = (label: string) => `${f.backend}-${label}-${Math.random().toString(36).slice(2, 8)}`

  it("miss → fetch over HTTP → write; then hit → zero API calls", async () => {
    const h = f.harness()
    const apiKey = keyOf("miss-hit")
    const adapter = h.adapter({ apiKey, cache: f.block() })
    const first = await h.run({ adapter })
    const out1 = outputOf(first)
    expect(out1.cache).toEqual({ backend: f.backend, read: "miss", write: "written" })
    expect(eventTypes(first)).toEqual(["elt.cache_miss", "elt.cache_write"])
    expect(first.events[0]?.fields).toMatchObject({ backend: f.backend, reason: "no-entry" })
    expect(first.events[1]?.fields.bytes).toBeGreaterThan(100)
    expect(first.apiCalls).toBeGreaterThan(2)

    const second = await h.run({ adapter })
    const out2 = outputOf(second)
    expect(second.apiCalls).toBe(0)
    expect(eventTypes(second)).toEqual(["elt.cache_hit"])
    expect(out2.cache).toEqual({ backend: f.backend, read: "hit" })
    expect(out2.sources).toEqual(out1.sources)
    expect(out2.fetched_at).toBe(out1.fetched_at)
  })

  it("--no-cache → refresh-forced miss; identical content → write skipped, entry untouched", async () => {
    const h = f.harness()
    const apiKey = keyOf("refresh")
    const adapter = h.adapter({ apiKey, cache: f.block() })
    outputOf(await h.run({ adapter }))
    const marker = await f.writeMarker(apiKey, adapter.destination_id)
    const forced = await h.run({ adapter, noCache: true })
    expect(forced.apiCalls).toBeGreaterThan(2)
    expect(eventTypes(forced)).toEqual(["elt.cache_miss", "elt.cache_write_skipped"])
    expect(forced.events[0]?.fields.reason).toBe("refresh-forced")
    expect(forced.events[1]?.fields.reason).toBe("hash-match")
    expect(outputOf(forced).cache).toEqual({ backend: f.backend, read: "refresh-forced", write: "skipped" })
    expect(await f.writeMarker(apiKey, adapter.destination_id)).toBe(marker)
  })

  it("changed upstream content → written again", async () => {
    const h = f.harness()
    const apiKey = keyOf("changed")
    const adapter = h.adapter({ apiKey, cache: f.block() })
    outputOf(await h.run({ adapter }))
    const marker = await f.writeMarker(apiKey, adapter.destination_id)
    changeUpstream(h, apiKey)
    const again = await h.run({ adapter, noCache: true })
    expect(eventTypes(again)).toEqual(["elt.cache_miss", "elt.cache_write"])
    expect(await f.writeMarker(apiKey, adapter.destination_id)).not.toBe(marker)
    // And the next read serves the new content without the API.
    const hit = await h.run({ adapter })
    expect(hit.apiCalls).toBe(0)
    expect(outputOf(hit).sources[0]?.tables.map((t) => t.name)).toContain("audit_log")
  })

  it("two API keys with the same destination id do not collide", async () => {
    const h = f.harness()
    const a = h.adapter({ apiKey: keyOf("org-a"), destinationId: "shared_dest", connectors: 3, cache: f.block() })
    const b = h.adapter({ apiKey: keyOf("org-b"), destinationId: "shared_dest", connectors: 5, cache: f.block() })
    const ra = outputOf(await h.run({ adapter: a }))
    const rb = outputOf(await h.run({ adapter: b }))
    expect(ra.account_hash).not.toBe(rb.account_hash)
    const ha = await h.run({ adapter: a })
    const hb = await h.run({ adapter: b })
    expect(ha.apiCalls + hb.apiCalls).toBe(0)
    expect(outputOf(ha).sources.length).toBe(ra.sources.length)
    expect(outputOf(hb).sources.length).toBe(rb.sources.length)
    expect(ra.sources.length).not.toBe(rb.sources.length)
  })
}
