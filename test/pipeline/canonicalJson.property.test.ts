import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { canonicalJson, canonicalJsonFast } from "../../src/services/Artifacts/artifacts"

/** Keys that exercise the fallback (integer-like, leading digits), `__proto__`, and ordinary and unusual names. */
const key = fc.oneof(fc.string(), fc.constantFrom("0", "1", "10", "9", "01", "4294967295", "1a", "__proto__", "toJSON", "", "é", "a", "B"))

const value = fc.letrec((tie) => ({
  leaf: fc.oneof(
    fc.string(),
    fc.double(),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.constant(undefined),
    fc.date({ noInvalidDate: false }),
    fc.constant(() => 1)
  ),
  array: fc.array(tie("node"), { maxLength: 5 }),
  object: fc.dictionary(key, tie("node"), { maxKeys: 6 }),
  nullProto: fc.dictionary(key, tie("node"), { maxKeys: 4, noNullPrototype: false }),
  node: fc.oneof({ depthSize: "small" }, tie("leaf"), tie("array"), tie("object"), tie("nullProto"))
})).node

describe("canonicalJsonFast", () => {
  it("equals canonicalJson on random values (no array holes)", () => {
    fc.assert(
      fc.property(value, (v) => {
        expect(canonicalJsonFast(v)).toBe(canonicalJson(v))
      }),
      { numRuns: 3000 }
    )
  })

  it("equals canonicalJson on fast-check's own anything (dates, null prototypes, object strings)", () => {
    fc.assert(
      fc.property(fc.anything({ withDate: true, withNullPrototype: true, withObjectString: true }), (v) => {
        expect(canonicalJsonFast(v)).toBe(canonicalJson(v))
      }),
      { numRuns: 3000 }
    )
  })

  it("equals canonicalJson on a model's fingerprint input with a TOML date in its sidecar", () => {
    const input = { sql: "SELECT 1", sidecar: { name: "m", strategy: { type: "time_interval", first_partition: new Date(0) }, tags: { "2": "x", a: 1 } }, contract: null }
    expect(canonicalJsonFast(input)).toBe(canonicalJson(input))
  })
})
