// The read-ahead's value tests that need no worker or files: which values cross a thread faithfully, and
// the shard JSON written with texts the worker already knew.
import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { emptyBody, putStamp, ReadAheadLoop, rememberJson, storedBodyJson, storedBodyJsonPlain } from "../../src/services/Project/cache"

const { cloneFaithful, jsonFaithful } = ReadAheadLoop

describe("cloneFaithful and jsonFaithful", () => {
  it("is true only for values structured cloning gives back equal", () => {
    const anything = fc.anything({ withDate: true, withMap: true, withSet: true, withNullPrototype: true, withSparseArray: true, withBigInt: true, withTypedArray: true, withBoxedValues: true })
    fc.assert(
      fc.property(anything, (value) => {
        if (cloneFaithful(value)) expect(structuredClone(value)).toStrictEqual(value)
        if (jsonFaithful(value)) expect(JSON.parse(JSON.stringify(value))).toStrictEqual(value)
      }),
      { numRuns: 500 }
    )
    for (const unfaithful of [new Date(0), Object.create(null), [1, , 3], new Map(), new (class Point {})(), { at: new Date(0) }, [() => 1]]) {
      expect(cloneFaithful(unfaithful)).toBe(false)
    }
    expect(cloneFaithful({ a: [1, "b", null, undefined, { c: true }], d: -0 })).toBe(true)
    for (const notJson of [undefined, { a: undefined }, [undefined], -0, Number.NaN, Number.POSITIVE_INFINITY, 1n, { a: [new Date(0)] }]) {
      expect(jsonFaithful(notJson)).toBe(false)
    }
    expect(jsonFaithful({ a: [1, "b", null, { c: true }], d: 0.5 })).toBe(true)
  })
})

describe("shard JSON with known texts spliced in", () => {
  it("is the plain stored form's JSON, whichever values' texts are known or kept alone", () => {
    const value = fc.dictionary(fc.string({ unit: "binary", maxLength: 4 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 4 })
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.string({ maxLength: 6 }), value, fc.boolean()), { maxLength: 8 }),
        fc.array(fc.tuple(fc.string({ maxLength: 6 }), value, fc.boolean()), { maxLength: 8 }),
        fc.array(fc.tuple(fc.string({ maxLength: 6 }), fc.string({ unit: "binary", maxLength: 20 })), { maxLength: 4 }),
        fc.array(fc.tuple(fc.string({ maxLength: 6 }), value), { maxLength: 4 }),
        (sidecars, contracts, sqls, asJson) => {
          const body = emptyBody()
          for (const [key, text] of sqls) body.sql.set(key, { text, refs: [{ catalog: undefined, schema: "s", table: key }] })
          for (const [key, v, known] of sidecars) {
            body.sidecars.set(key, v as never)
            if (known) rememberJson(v, JSON.stringify(v))
          }
          for (const [key, v, known] of contracts) {
            body.contracts.set(key, v as never)
            if (known) rememberJson(v, JSON.stringify(v))
          }
          // Sidecars kept as their JSON alone (a load of summaries), under keys no other sidecar has.
          for (const [key, v] of asJson) if (!body.sidecars.has(key)) body.sidecarJson.set(key, JSON.stringify(v))
          putStamp(body.files, "a.sql", [1, 2.5, 3, 4, "k"])
          expect(storedBodyJson(body)).toBe(storedBodyJsonPlain(body))
        }
      ),
      { numRuns: 300 }
    )
  })
})
