import { Either } from "effect"
import fc from "fast-check"
import { createHash } from "node:crypto"
import { describe, expect, it } from "vitest"
import * as Toml from "smol-toml"
import { REJECT_CODES, type RejectCode } from "../../src/services/Products/errors"
import { parseSpec, specDigest } from "../../src/services/Products/spec"
import { parseMaxLag, typeProblem } from "../../src/services/Products/specRules"
import { specText } from "./support"

const enc = (s: string) => new TextEncoder().encode(s)
const codeOf = (text: string | Uint8Array) => {
  const r = parseSpec(typeof text === "string" ? enc(text) : text)
  return Either.isLeft(r) ? r.left.code : "ok"
}
const detailOf = (text: string) => {
  const r = parseSpec(enc(text))
  return Either.isLeft(r) ? r.left.detail : ""
}

const valid = specText()
const swap = (from: string, to: string) => {
  expect(valid).toContain(from)
  return valid.replace(from, to)
}
const COLUMNS_BLOCK = valid.slice(valid.indexOf("columns = ["), valid.indexOf("]\nchecks") + 1)

/** One spec per reject code, each differing from the valid spec in one place. */
const cases: ReadonlyArray<readonly [RejectCode, string]> = [
  ["not-utf8", "\u0000"], // replaced below by invalid bytes
  ["not-toml", swap("[product.trust]", "[product.trust")],
  ["unknown-key", swap("spec_version = 0", "spec_version = 0\nowner = \"me\"")],
  ["missing-key", swap('intent = "Weekly order count and net value per store"\n', "")],
  ["invalid-value", swap('tables = ["shop.raw.orders", "shop.raw.stores"]', "tables = []")],
  ["spec-version-unsupported", swap("spec_version = 0", "spec_version = 1")],
  ["product-name-invalid", swap('name = "orders_weekly"', 'name = "orders-weekly"')],
  ["intent-empty", swap('intent = "Weekly order count and net value per store"', 'intent = "   "')],
  ["output-model-invalid", swap('model = "orders_weekly_mart"', 'model = "../escape"')],
  ["column-name-invalid", swap('{ name = "orders",', '{ name = "2orders",')],
  ["type-not-rocky", swap('type = "Int64"', 'type = "BIGINT"')],
  ["column-name-duplicate", swap('{ name = "orders",', '{ name = "store_id",')],
  ["grain-column-unknown", swap('grain = ["store_id","week_start"]', 'grain = ["store_id","week"]')],
  ["classification-column-unknown", swap('classifications = { store_id = "internal" }', 'classifications = { store = "internal" }')],
  ["freshness-missing-time-column", swap(', time_column = "week_start"', "")],
  ["max-lag-unparseable", swap('max_lag = "8d"', 'max_lag = "8 d"')],
  ["source-not-exact-triple", swap('"shop.raw.stores"', '"shop.raw.*"')],
  ["trust-not-propose-only", swap('agent = "propose_only"', 'agent = "auto_apply"')]
]

describe("product spec parser", () => {
  it("accepts the reference example and resolves the output model", () => {
    const r = parseSpec(enc(valid))
    expect(Either.isRight(r)).toBe(true)
    const spec = Either.getOrThrow(r)
    expect(spec.outputModel).toBe("orders_weekly_mart")
    expect(spec.freshness?.maxLagSeconds).toBe(8n * 86400n)
    expect(spec.classifications).toEqual([["store_id", "internal"]])
    const defaulted = Either.getOrThrow(parseSpec(enc(specText({ model: null }))))
    expect(defaulted.outputModel).toBe("orders_weekly")
    expect(defaulted.outputModelDeclared).toBe(false)
  })

  it("has a test case for every reject code, and each case yields exactly its code", () => {
    expect(new Set(cases.map(([c]) => c))).toEqual(new Set(REJECT_CODES))
    for (const [code, text] of cases) {
      if (code === "not-utf8") expect(codeOf(new Uint8Array([0x5b, 0xff, 0xfe, 0x5d]))).toBe("not-utf8")
      else expect([code, codeOf(text)]).toEqual([code, code])
    }
  })

  it("names unknown keys by dotted path, scanning keys in sorted order", () => {
    expect(detailOf(swap('agent = "propose_only"', 'agent = "propose_only"\nmystery = 1\nalpha = 2'))).toBe("unknown key product.trust.alpha")
    expect(detailOf(swap('{ name = "orders",', '{ x = 1, name = "orders",'))).toBe("unknown key product.output.columns.3.x")
    expect(detailOf(swap('tables = ["shop.raw.orders", "shop.raw.stores"]', 'include = ["x"]\ntables = ["a.b.c"]'))).toBe("unknown key product.source.include")
  })

  it("reports missing keys for every required key", () => {
    expect(codeOf("spec_version = 0\n")).toBe("missing-key")
    expect(detailOf(swap(', nullable = true  }', " }"))).toContain("product.output.columns.2.nullable")
    expect(detailOf(swap('max_lag = "8d", ', ""))).toContain("max_lag")
    expect(detailOf(swap('agent = "propose_only"', ""))).toContain("product.trust.agent")
    expect(detailOf(swap(COLUMNS_BLOCK, ""))).toContain("product.output.columns")
  })

  it("refuses wrong TOML types, a bad severity, and a bool or float spec_version as invalid-value", () => {
    expect(codeOf(swap("spec_version = 0", "spec_version = true"))).toBe("invalid-value")
    expect(codeOf(swap("spec_version = 0", "spec_version = 0.0"))).toBe("invalid-value")
    expect(codeOf(swap('severity = "warning"', 'severity = "fatal"'))).toBe("invalid-value")
    expect(codeOf(swap("nullable = true ", 'nullable = "yes"'))).toBe("invalid-value")
    expect(codeOf(swap('grain = ["store_id","week_start"]', "grain = []"))).toBe("invalid-value")
    expect(codeOf(swap('checks = ["orders >= 0"]', "checks = [1]"))).toBe("invalid-value")
    expect(codeOf(swap('checks = ["orders >= 0"]', "checks = []"))).toBe("ok")
  })

  it("decides between several faults in the fixed evaluation order", () => {
    // A modelling error wins over the version.
    expect(codeOf(swap("spec_version = 0", "spec_version = 7").replace('agent = "propose_only"', 'agent = "auto_apply"'))).toBe("trust-not-propose-only")
    // Structural checks of source come before output's, output's before trust's.
    const both = swap('"shop.raw.stores"', '"shop.raw"').replace('type = "Int64"', 'type = "long"')
    expect(codeOf(both)).toBe("source-not-exact-triple")
    // The name identifier is checked after the whole structure.
    expect(codeOf(swap('name = "orders_weekly"', 'name = "bad name"').replace('agent = "propose_only"', 'agent = "x"'))).toBe("trust-not-propose-only")
    // Within a column: name identifier before type vocabulary.
    expect(codeOf(swap('{ name = "orders",     type = "Int64"', '{ name = "9x", type = "long"'))).toBe("column-name-invalid")
    // Cross-checks after per-field checks: a duplicate column loses to a bad max_lag.
    expect(codeOf(swap('{ name = "orders",', '{ name = "store_id",').replace('"8d"', '"8w"'))).toBe("max-lag-unparseable")
    // Unknown top-level keys come before everything in product.
    expect(codeOf(swap("spec_version = 0", "zzz = 1").replace('agent = "propose_only"', 'agent = "x"'))).toBe("unknown-key")
  })

  it("follows the max_lag grammar exactly", () => {
    for (const ok of ["3600s", "24h", "7d", "1s", "90d"]) expect([ok, parseMaxLag(ok) !== undefined]).toEqual([ok, true])
    const bad = ["24", "h24", "24H", "24 h", " 24h", "0s", "-3d", "1.5h", "24m", "", "24hh", "\u0662\u0664h", "07d", "99999999999999999999999d"]
    for (const b of bad) expect([b, parseMaxLag(b)]).toEqual([b, undefined])
    expect(parseMaxLag("2h")).toBe(7200n)
  })

  it("checks the type vocabulary, its parameters and suggests warehouse spellings", () => {
    for (const ok of ["Int64", "Decimal", "Decimal(12,2)", "Decimal(abc)", "Array<String>", "Map<String,Int64>", "TimestampNtz"]) expect([ok, typeProblem(ok)]).toEqual([ok, undefined])
    expect(typeProblem("BIGINT")).toContain("did you mean Int64?")
    expect(typeProblem("varchar")).toContain("did you mean String?")
    expect(typeProblem("int64")).toContain("did you mean Int64?")
    expect(typeProblem("TIMESTAMP_NTZ")).toContain("did you mean TimestampNtz?")
    expect(typeProblem("Int64(3)")).toContain("takes no parameters")
    expect(typeProblem("Array(x)")).toContain("takes parameters in <")
    expect(typeProblem("Decimal(12,2")).toContain("must end with")
    expect(typeProblem("Blob")).toContain("expected one of")
  })

  it("digests the raw bytes: a comment is a new revision", () => {
    expect(specDigest(enc("hello"))).toBe(`sha256:${createHash("sha256").update("hello").digest("hex")}`)
    expect(specDigest(enc("hello"))).toBe("sha256:2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824")
    expect(specDigest(enc(valid))).not.toBe(specDigest(enc(`${valid}# note\n`)))
  })
})

const tomlValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.string(),
    fc.boolean(),
    fc.bigInt({ min: -5n, max: 5n }),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.array(tie("value"), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom("name", "type", "nullable", "x", "tables", "agent", "model"), tie("value"), { maxKeys: 3 })
  )
})).value

/** Random documents near the schema: real keys with random values and shapes. */
const nearSpec = fc.record({
  spec_version: fc.option(tomlValue, { nil: undefined }),
  product: fc.oneof(
    tomlValue,
    fc.record(
      {
        name: tomlValue,
        intent: tomlValue,
        source: fc.oneof(tomlValue, fc.record({ tables: tomlValue })),
        output: fc.oneof(tomlValue, fc.record({ grain: tomlValue, columns: tomlValue, model: tomlValue, freshness: tomlValue, classifications: tomlValue })),
        trust: fc.oneof(tomlValue, fc.record({ agent: fc.oneof(tomlValue, fc.constant("propose_only")) }))
      },
      { requiredKeys: [] }
    )
  )
})

const strip = (v: unknown): unknown => JSON.parse(JSON.stringify(v, (_k, x) => (typeof x === "bigint" ? Number(x) : x)))

describe("product spec parser (fuzz)", () => {
  const totalAndCoded = (bytes: Uint8Array) => {
    const r = parseSpec(bytes)
    if (Either.isLeft(r)) expect(REJECT_CODES).toContain(r.left.code)
    return true
  }

  it("never throws on random bytes and always yields a code or a spec", () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 300 }), totalAndCoded), { numRuns: 1000 })
  })

  it("never throws on random TOML documents", () => {
    fc.assert(
      fc.property(nearSpec, (doc) => {
        const data = Object.fromEntries(Object.entries(doc).filter(([, v]) => v !== undefined))
        let text: string
        try {
          text = Toml.stringify(strip(data) as Record<string, unknown>)
        } catch {
          return true // not representable as a TOML document
        }
        return totalAndCoded(enc(text))
      }),
      { numRuns: 1000 }
    )
  })

  it("never throws on mutations of a valid spec", () => {
    fc.assert(
      fc.property(fc.nat(valid.length), fc.nat(20), fc.string({ maxLength: 6 }), (at, cut, insert) =>
        totalAndCoded(enc(valid.slice(0, at) + insert + valid.slice(at + cut)))
      ),
      { numRuns: 1000 }
    )
  })
})
