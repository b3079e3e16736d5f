import { describe, expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as Toml from "smol-toml"
import { fastToml } from "../../src/services/Project/tomlFast"

// The subset TOML reader against its reference, smol-toml: whatever it reads, smol-toml reads the
// same (same keys in the same order, same values and types); what it cannot, it declines.

/** smol-toml's result as plain data (its tables may have no prototype), or "throws". */
const reference = (text: string): unknown => {
  try {
    return plain(Toml.parse(text))
  } catch {
    return "throws"
  }
}
const plain = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(plain)
  if (typeof value === "object" && value !== null) {
    const out: Record<string, unknown> = {}
    for (const key of Object.keys(value)) out[key] = plain((value as Record<string, unknown>)[key])
    return out
  }
  return value
}

/** Reads as smol-toml does, or declines; true when it read. */
const expectAgrees = (text: string): boolean => {
  const fast = fastToml(text)
  if (fast === undefined) return false
  const expected = reference(text)
  expect(expected).not.toBe("throws")
  expect(fast).toEqual(expected)
  expect(Object.getPrototypeOf(fast)).toBe(Object.prototype)
  expect(JSON.stringify(fast)).toBe(JSON.stringify(expected))
  return true
}

// Pieces of TOML, mostly in the subset, some just outside it, some invalid TOML.
const key = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom("name", "type", "column", "values", "severity", "table", "schema", "a-b", "x_1", "1") },
  { weight: 1, arbitrary: fc.constantFrom("__proto__", "constructor", "a.b", '"q"', "", "é", "a b", "toString") }
)
const stringBody = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom("", "m00001", "x y", "main", "é ü", "a'b", 'a"b', "#", "[x]", "=") },
  { weight: 1, arbitrary: fc.constantFrom("a\\nb", "a\\\\", "\t", "\u0001", "\u007f", "\n", "\r") },
  { weight: 1, arbitrary: fc.string({ maxLength: 4 }) }
)
const scalar = fc.oneof(
  { weight: 5, arbitrary: stringBody.map((s) => `"${s}"`) },
  { weight: 2, arbitrary: stringBody.map((s) => `'${s}'`) },
  { weight: 3, arbitrary: fc.constantFrom("0", "1", "42", "-7", "123456789012345", "true", "false") },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      "-0", "+1", "007", "1_000", "1.5", "1e3", "0x1F", "1234567890123456", "9007199254740993", "inf", "nan",
      "1979-05-27", "True", '""""""', "''''''", '"unterminated', "{ a = 1 }", "[[1], [2]]", "truex", "1a", ""
    )
  }
)
const blank = fc.constantFrom(" ", "\t", "", "  ")
const array = fc
  .tuple(fc.array(fc.tuple(blank, scalar, fc.constantFrom(",", ", ", ",\n  ", " ,")), { maxLength: 4 }), blank, fc.boolean(), fc.constantFrom("", "# c"))
  .map(([items, pad, trailing, comment]) => {
    const body = items.map(([b, v, sep], k) => `${b}${v}${k < items.length - 1 || trailing ? sep : ""}`).join("")
    return `[${pad}${body}${comment === "" ? "" : `\n${comment}\n`}]`
  })
const value = fc.oneof({ weight: 4, arbitrary: scalar }, { weight: 1, arbitrary: array })
const comment = fc.constantFrom("", "", " # note", "# x", " #\u0001", " # é")
const line = fc.oneof(
  { weight: 6, arbitrary: fc.tuple(blank, key, fc.constantFrom(" = ", "=", " =", "  =  ", " : "), value, comment).map(([b, k, eq, v, c]) => `${b}${k}${eq}${v}${c}`) },
  { weight: 2, arbitrary: fc.tuple(fc.constantFrom("target", "tags", "strategy", "rules", "tests", "name", "a.b", " x "), comment).map(([n, c]) => `[${n}]${c}`) },
  { weight: 2, arbitrary: fc.tuple(fc.constantFrom("tests", "sources", "columns", "tags", "name"), comment).map(([n, c]) => `[[${n}]]${c}`) },
  { weight: 1, arbitrary: fc.constantFrom("", "# comment", "   ", "[[tests] ]", "[ tests ]", "\uFEFF", "key = 1 key2 = 2") }
)
const document = fc.tuple(fc.array(line, { maxLength: 12 }), fc.constantFrom("\n", "\n", "\n\n", "\r\n"), fc.boolean()).map(([lines, eol, last]) => lines.join(eol) + (last ? eol : ""))

/** A sidecar or contract as pcli's projects write them (bench/support, bench/projectMix), with some variation. */
const sidecarText = fc
  .tuple(fc.constantFrom("m00001", "orders", "a b"), fc.boolean(), fc.boolean(), fc.boolean(), fc.integer({ min: 0, max: 3 }))
  .map(
    ([name, dependsOn, tags, sources, tests]) =>
      `name = "${name}"\nintent = "generated"\n${dependsOn ? 'depends_on = ["m00000", "m00002"]\n' : ""}\n[target]\ncatalog = "warehouse"\nschema = "main"\ntable = "${name}"\n\n` +
      (tags ? `[tags]\nlayer = "l1"\nowner = "team-3"\n\n` : "") +
      '[[tests]]\ntype = "not_null"\ncolumn = "id"\n\n[[tests]]\ntype = "accepted_values"\ncolumn = "k"\nvalues = [0, 1, 2, 3, 4, 5, 6]\n'.repeat(tests) +
      (sources ? '\n[[sources]]\nschema = "ext"\ntable = "events"\n' : "")
  )

describe("fast TOML reader", () => {
  it("whatever it reads, smol-toml reads the same", () => {
    let read = 0
    fc.assert(
      fc.property(document, (text) => {
        if (expectAgrees(text)) read++
      }),
      { numRuns: 4000 }
    )
    // Not a reader that declines everything.
    expect(read).toBeGreaterThan(400)
  })

  it("reads the sidecars and contracts pcli's generated projects write", () => {
    fc.assert(
      fc.property(sidecarText, (text) => {
        expect(expectAgrees(text)).toBe(true)
      }),
      { numRuns: 200 }
    )
    const contract = '[[columns]]\nname = "id"\ntype = "BIGINT"\nnullable = false\n\n[[columns]]\nname = "k"\ntype = "BIGINT"\nnullable = true\n\n[rules]\nrequired = ["id"]\n'
    expect(expectAgrees(contract)).toBe(true)
    expect(expectAgrees("")).toBe(true)
    expect(expectAgrees("# only a comment\n\n")).toBe(true)
  })

  it("reads what smol-toml writes of sidecar-like values", () => {
    const scalarValue = fc.oneof(fc.string({ maxLength: 6 }), fc.integer({ min: -1000, max: 1000 }), fc.boolean())
    const table = fc.dictionary(fc.constantFrom("name", "type", "column", "k", "x-y", "n_1"), fc.oneof(scalarValue, fc.array(scalarValue, { maxLength: 3 })), { maxKeys: 4 })
    const doc = fc.record({ top: table, target: table, tests: fc.array(table, { minLength: 1, maxLength: 3 }) })
    fc.assert(
      fc.property(doc, ({ top, target, tests }) => {
        const text = Toml.stringify({ ...top, target, tests })
        expectAgrees(text)
      }),
      { numRuns: 1000 }
    )
  })

  it("declines what is outside its subset, valid TOML or not", () => {
    const declined = [
      'a = "x"\r\n', // CR
      "\uFEFFa = 1\n", // BOM
      "a = 1\na = 2\n", // a key twice (invalid)
      "[t]\n[t]\n", // a table twice (invalid)
      "t = 1\n[t]\n", // a table over a key (invalid)
      "[t]\n[[t]]\n", // an array of tables over a table (invalid)
      "a.b = 1\n", // dotted key
      "[a.b]\n", // dotted header
      "a = -0\n",
      "a = 007\n", // leading zeros (invalid)
      "a = +1\n",
      "a = 1_000\n",
      "a = 1.5\n",
      "a = 1234567890123456\n", // past 15 digits
      'a = "a\\nb"\n', // escapes
      'a = """x"""\n', // multi-line string
      "a = '''x'''\n",
      "a = { b = 1 }\n", // inline table
      "a = [[1], [2]]\n", // nested array
      "a = [1, # c\n2]\n", // comment in an array
      "a = 1 b = 2\n", // two pairs on a line (invalid)
      "__proto__ = 1\n",
      "[__proto__]\n",
      'a = "\u0001"\n', // control character (invalid)
      "a = 1 # \u0001\n",
      "a = 1979-05-27\n" // a date
    ]
    for (const text of declined) expect([text, fastToml(text)]).toEqual([text, undefined])
  })
})
