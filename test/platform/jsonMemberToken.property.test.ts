// `topLevelMemberToken` finds the exact text of one top-level member's value (the MCP framer echoes a
// request id's number token with it). Checked against JSON.parse on generated documents, and, for
// numbers JSON.parse cannot keep, against the literal text the generator wrote.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { topLevelMemberToken } from "../../src/platform/jsonMemberToken"

const json = fc.jsonValue({ maxDepth: 4 })
// Strings of any code unit, lone surrogates and control characters included, to stress the escape handling.
const anyString = fc.string({ unit: "binary", maxLength: 12 })
const key = fc.oneof(anyString, fc.constantFrom("id", "ID", "id ", "i\\d", "\\", '"', "params", "requestId"))
const space = fc.constantFrom("", " ", "\n", "\t\r\n ", "  ")
const members = fc.array(fc.tuple(key, fc.oneof(json, anyString)), { maxLength: 5 })

/** An object's text with the members in order and `ws` wherever JSON allows whitespace. */
const objectText = (entries: ReadonlyArray<readonly [string, string]>, ws: () => string) =>
  `${ws()}{${ws()}${entries.map(([k, v]) => `${k}${ws()}:${ws()}${v}`).join(`${ws()},${ws()}`)}${ws()}}${ws()}`

const spaces = fc.array(space, { minLength: 64, maxLength: 64 }).map((list) => {
  let i = 0
  return () => list[i++ % list.length]!
})

// A JSON number as text: any size, any precision, any exponent.
const digits = (min: number) => fc.string({ unit: fc.constantFrom(..."0123456789"), minLength: min, maxLength: 40 })
const numberToken = fc
  .tuple(fc.boolean(), fc.oneof(fc.constant("0"), fc.tuple(fc.constantFrom(..."123456789"), digits(0)).map(([a, b]) => a + b)), fc.option(digits(1)), fc.option(fc.tuple(fc.constantFrom("e", "E"), fc.constantFrom("", "+", "-"), digits(1))))
  .map(([neg, int, frac, exp]) => `${neg ? "-" : ""}${int}${frac === null ? "" : `.${frac}`}${exp === null ? "" : exp.join("")}`)
// Ways to spell the key "id".
const idKey = fc.constantFrom('"id"', '"\\u0069d"', '"i\\u0064"', '"\\u0069\\u0064"')

describe("topLevelMemberToken", () => {
  it("agrees with JSON.parse on any object, whatever the member's value, position and spelling", () => {
    fc.assert(
      fc.property(members, fc.option(fc.tuple(fc.nat(5), idKey, fc.oneof(json, fc.maxSafeInteger(), fc.double({ noNaN: true, noDefaultInfinity: true })))), spaces, (rest, id, ws) => {
        const entries: Array<readonly [string, string]> = rest.map(([k, v]) => [JSON.stringify(k), JSON.stringify(v)])
        if (id !== null) entries.splice(Math.min(id[0], entries.length), 0, [id[1], JSON.stringify(id[2])])
        const text = objectText(entries, ws)
        const parsed = JSON.parse(text) as Record<string, unknown>
        const token = topLevelMemberToken(text, "id")
        if (!Object.hasOwn(parsed, "id")) expect(token).toBeUndefined()
        else expect(JSON.parse(token!)).toStrictEqual(parsed["id"])
      }),
      { numRuns: 2000 }
    )
  })

  it("returns a number's token exactly as written, however JSON.parse would round it, and the last when repeated", () => {
    fc.assert(
      fc.property(members, members, numberToken, idKey, fc.option(numberToken), spaces, (before, after, number, spelled, earlier, ws) => {
        const noId = ([k]: readonly [string, unknown]) => k !== "id"
        const entries: Array<readonly [string, string]> = [
          ...(earlier === null ? [] : [['"id"', earlier] as const]),
          ...before.map(([k, v]) => [JSON.stringify(k), JSON.stringify(v)] as const),
          [spelled, number],
          ...after.filter(noId).map(([k, v]) => [JSON.stringify(k), JSON.stringify(v)] as const)
        ]
        const text = objectText(entries, ws)
        JSON.parse(text)
        expect(topLevelMemberToken(text, "id")).toBe(number)
      }),
      { numRuns: 2000 }
    )
  })

  it("finds a member inside the member it found (params.requestId), and nothing when the top is not an object", () => {
    const line = `{"method":"notifications/cancelled","params":{"reason":"x\\\\","requestId":-1.50e+0400},"id":[1]}`
    expect(topLevelMemberToken(topLevelMemberToken(line, "params")!, "requestId")).toBe("-1.50e+0400")
    for (const text of ["[1]", '"id"', "1", "null", " [ {\"id\":1} ] ", "{}", '{"x":{"id":1}}']) expect(topLevelMemberToken(text, "id")).toBeUndefined()
  })
})
