import { describe, expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import { asciiOnly } from "../../src/services/Project/cache"

// The reference: every non-ASCII UTF-16 unit escaped (asciiOnly skips the scan when there is none).
const escapeAll = (json: string) => json.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)

describe("asciiOnly", () => {
  it("equals escaping every non-ASCII unit, and reads back as the same value", () => {
    const text = fc.oneof(fc.string(), fc.string({ unit: "binary" }), fc.string({ unit: "grapheme" }), fc.string({ unit: fc.constantFrom("a", "é", "\u0080", "\uffff", "\ud83d", "\ude00", "\"") }))
    fc.assert(
      fc.property(text, (s) => {
        const json = JSON.stringify(s)
        const out = asciiOnly(json)
        expect(out).toBe(escapeAll(json))
        expect(JSON.parse(out)).toBe(s)
        expect(Buffer.byteLength(out, "utf8")).toBe(out.length)
      }),
      { numRuns: 1000 }
    )
  })
})
