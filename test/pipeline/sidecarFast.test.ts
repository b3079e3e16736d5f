import { describe, expect, it } from "@effect/vitest"
import { Either, Option, Schema } from "effect"
import * as fc from "fast-check"
import * as Toml from "smol-toml"
import { MAX_NESTING, tooDeep } from "../../src/platform/tomlNesting"
import { ModelContract, ModelSidecar } from "../../src/schemas/model"
import { ReadAheadLoop } from "../../src/services/Project/cache"
import { fastDecodeContract, fastDecodeSidecar } from "../../src/services/Project/sidecarFast"

const { jsonFaithful } = ReadAheadLoop

const options = { onExcessProperty: "error", errors: "all" } as const
const schemaSidecar = Schema.decodeUnknownEither(ModelSidecar, options)
const schemaContract = Schema.decodeUnknownEither(ModelContract, options)

/** Mostly valid values, sometimes of the wrong type, so both paths and both outcomes are exercised. */
const str = fc.oneof({ weight: 6, arbitrary: fc.constantFrom("a", "main", "id", "x y", "") }, { weight: 1, arbitrary: fc.constantFrom<unknown>(1, true, null, ["a"], {}) })
const optionalKey = <T>(key: string, value: fc.Arbitrary<T>) =>
  fc.option(value.map((v) => ({ [key]: v })), { nil: undefined, freq: 2 }).map((o) => o ?? {})
const oneOf = (...values: Array<unknown>) => fc.constantFrom(...values)

const target = fc.oneof(
  { weight: 8, arbitrary: fc.record({ catalog: str, schema: str, table: str }) },
  { weight: 1, arbitrary: fc.record({ schema: str, table: str }) },
  { weight: 1, arbitrary: fc.record({ catalog: str, schema: str, table: str, extra: str }) }
)
const strategy = oneOf(
  { type: "full_refresh" },
  { type: "incremental", timestamp_column: "ts" },
  { type: "incremental" },
  { type: "time_interval", time_column: "ts", granularity: "day" },
  { type: "content_addressed", storage_prefix: "out" },
  { type: "merge" },
  { type: "full_refresh", extra: 1 }
)
const test = fc.oneof(
  fc
    .tuple(oneOf("not_null", "unique", "bogus"), str, optionalKey("severity", oneOf("error", "warning", "fatal")), optionalKey("filter", str))
    .map(([type, column, sev, filter]) => ({ type, column, ...sev, ...filter })),
  fc
    .tuple(fc.array(oneOf("a", 1, 2.5, true, null), { maxLength: 3 }), optionalKey("severity", oneOf("error", "warning")))
    .map(([values, sev]) => ({ type: "accepted_values", column: "k", values, ...sev })),
  fc.tuple(str, optionalKey("filter", str)).map(([expression, filter]) => ({ type: "expression", expression, ...filter })),
  oneOf(
    { type: "composite", kind: "unique", columns: ["a", "b"] },
    { type: "row_count_range", min: 1 },
    { type: "not_null", column: "id", colour: "red" }
  )
)
const sidecar = fc
  .tuple(
    str,
    optionalKey("intent", str),
    optionalKey("depends_on", fc.array(str, { maxLength: 3 })),
    target,
    optionalKey("strategy", strategy),
    optionalKey("sources", fc.array(fc.oneof(fc.record({ schema: str, table: str }), fc.record({ catalog: str, schema: str, table: str })), { maxLength: 2 })),
    optionalKey("tests", fc.array(test, { maxLength: 4 })),
    optionalKey("tags", fc.dictionary(fc.constantFrom("layer", "owner", "tier"), str)),
    optionalKey("classification", fc.dictionary(fc.constantFrom("pii", "gdpr"), str)),
    optionalKey("freshness", oneOf({ max_lag_seconds: 60 })),
    optionalKey("colour", str)
  )
  .map(([name, intent, dependsOn, t, s, sources, tests, tags, classification, freshness, colour]) => ({
    name,
    ...intent,
    ...dependsOn,
    target: t,
    ...s,
    ...sources,
    ...tests,
    ...tags,
    ...classification,
    ...freshness,
    ...colour
  }))

const contract = fc
  .tuple(
    optionalKey("columns", fc.array(fc.record({ name: str, type: str, nullable: fc.oneof(fc.boolean(), str) }), { maxLength: 3 })),
    optionalKey("rules", fc.oneof(fc.constant({}), fc.record({ required: fc.array(str, { maxLength: 2 }) }), oneOf({ other: 1 }))),
    optionalKey("extra", str)
  )
  .map(([columns, rules, extra]) => ({ ...columns, ...rules, ...extra }))

/** Same value and same key order (artifacts hash what the decoder builds). */
const expectSameDecode = (fast: unknown, schema: Either.Either<unknown, unknown>) => {
  if (fast === undefined) return false
  expect(Either.isRight(schema)).toBe(true)
  const right = Either.getOrThrow(schema)
  expect(fast).toEqual(right)
  expect(JSON.stringify(fast)).toBe(JSON.stringify(right))
  return true
}

describe("sidecar fast path", () => {
  it("whenever it decodes a sidecar, the Schema decoder accepts it and builds the same value", () => {
    let taken = 0
    fc.assert(
      fc.property(sidecar, (data) => {
        if (expectSameDecode(fastDecodeSidecar(data), schemaSidecar(data))) taken++
      }),
      { numRuns: 2000 }
    )
    expect(taken).toBeGreaterThan(20)
  })

  it("whenever it decodes a contract, the Schema decoder accepts it and builds the same value", () => {
    let taken = 0
    fc.assert(
      fc.property(contract, (data) => {
        if (expectSameDecode(fastDecodeContract(data), schemaContract(data))) taken++
      }),
      { numRuns: 1000 }
    )
    expect(taken).toBeGreaterThan(20)
  })

  it("takes the fast path for the usual TOML sidecar and contract", () => {
    const side = Toml.parse(
      'name = "m1"\nintent = "x"\ndepends_on = ["m0"]\n[target]\ncatalog = "w"\nschema = "main"\ntable = "m1"\n[tags]\nlayer = "gold"\n' +
        '[[tests]]\ntype = "not_null"\ncolumn = "id"\n[[tests]]\ntype = "accepted_values"\ncolumn = "k"\nvalues = [1, "a", true]\nseverity = "warning"\n' +
        '[[sources]]\nschema = "ext"\ntable = "events"\n'
    )
    expect(expectSameDecode(fastDecodeSidecar(side), schemaSidecar(side))).toBe(true)
    const con = Toml.parse('[[columns]]\nname = "id"\ntype = "BIGINT"\nnullable = false\n[rules]\nrequired = ["id"]\n')
    expect(expectSameDecode(fastDecodeContract(con), schemaContract(con))).toBe(true)
  })

  it("leaves unknown keys and rarer shapes to the Schema decoder", () => {
    const base = { name: "a", target: { catalog: "c", schema: "s", table: "t" } }
    expect(fastDecodeSidecar({ ...base, colour: 1 })).toBeUndefined()
    expect(fastDecodeSidecar({ ...base, freshness: { max_lag_seconds: 5 } })).toBeUndefined()
    expect(fastDecodeSidecar({ ...base, strategy: { type: "time_interval", time_column: "ts", granularity: "day" } })).toBeUndefined()
    expect(fastDecodeSidecar({ ...base, tests: [{ type: "row_count_range", min: 1 }] })).toBeUndefined()
  })

  // The plain decoder rejects a file nested deeper than MAX_NESTING; the fast path needs no check of
  // its own because it accepts only shapes a few levels deep: any deeper value is declined.
  const everyPlace = (data: unknown): Array<readonly [Record<string, unknown> | Array<unknown>, string | number]> => {
    const places: Array<readonly [Record<string, unknown> | Array<unknown>, string | number]> = []
    const walk = (value: unknown) => {
      if (Array.isArray(value)) value.forEach((child, i) => (places.push([value, i]), walk(child)))
      else if (typeof value === "object" && value !== null) for (const key in value) places.push([value as Record<string, unknown>, key]), walk((value as Record<string, unknown>)[key])
    }
    walk(data)
    return places
  }
  const deepValue = (depth: number, leaf: unknown) =>
    Array.from({ length: depth }).reduce<unknown>((inner, _, i) => (i % 2 === 0 ? [inner] : { k: inner }), leaf)

  /** Shapes the fast path takes, with any double (nan, inf, -0 included) among accepted values. */
  const name = fc.constantFrom("a", "main", "id", "é")
  const validSidecar = fc
    .tuple(
      name,
      fc.record({ catalog: name, schema: name, table: name }),
      fc.array(
        fc.oneof(
          fc.record({ type: fc.constantFrom("not_null", "unique"), column: name }),
          fc.record({ type: fc.constant("accepted_values"), column: name, values: fc.array(fc.oneof(fc.double(), fc.integer(), name, fc.boolean()), { minLength: 1, maxLength: 4 }) })
        ),
        { maxLength: 3 }
      ),
      fc.dictionary(fc.constantFrom("layer", "owner"), name)
    )
    .map(([n, target, tests, tags]) => ({ name: n, target, tests, tags, sources: [{ schema: "ext", table: "events" }] }))
  const validContract = fc
    .array(fc.record({ name, type: fc.constantFrom("INTEGER", "VARCHAR"), nullable: fc.boolean() }), { maxLength: 3 })
    .map((columns) => ({ columns, rules: { required: columns.map((c) => c.name) } }))

  // The read-ahead worker sends what they build as JSON without checking it (readAheadLoop's workIsJson).
  it("builds only JSON values: whatever odd value or key is put anywhere, what it decodes comes back from JSON the same", () => {
    let taken = 0
    fc.assert(
      fc.property(
        fc.oneof(validSidecar.map((d) => ["sidecar", d] as const), validContract.map((d) => ["contract", d] as const)),
        fc.nat(),
        fc.constantFrom<() => unknown>(
          () => Number.NaN,
          () => Number.POSITIVE_INFINITY,
          () => Number.NEGATIVE_INFINITY,
          () => -0,
          () => undefined,
          () => 10n,
          () => new Date(0),
          () => Toml.parse("d = 1979-05-27")["d"],
          () => Object.assign(Object.create(null) as object, { a: "b" }),
          () => [Number.NaN, -0, "a"],
          () => "__proto__",
          // And plain ones, so that many cases still decode.
          () => 1.5,
          () => "a",
          () => true
        ),
        fc.boolean(),
        ([kind, data], at, odd, asKey) => {
          const copy = structuredClone(data) as Record<string, unknown>
          const places = everyPlace(copy)
          if (places.length === 0) return
          const [container, key] = places[at % places.length]!
          const value = odd()
          // Either an own `__proto__` key beside the others (as smol-toml makes one), or the odd value in place.
          if (asKey && !Array.isArray(container)) Object.defineProperty(container, "__proto__", { value: "x", enumerable: true, writable: true, configurable: true })
          else (container as Record<string | number, unknown>)[key] = value
          const decoded = kind === "sidecar" ? fastDecodeSidecar(copy) : fastDecodeContract(copy)
          if (decoded === undefined) return
          taken++
          expect(jsonFaithful(decoded)).toBe(true)
          expect(JSON.parse(JSON.stringify(decoded))).toStrictEqual(decoded)
        }
      ),
      { numRuns: 3000 }
    )
    expect(taken).toBeGreaterThan(20)
  })

  it("leaves nan, inf, -0.0 and a `__proto__` key in TOML to the Schema decoder", () => {
    const base = 'name = "m"\n[target]\ncatalog = "w"\nschema = "s"\ntable = "m"\n'
    for (const values of ["[nan]", "[inf]", "[-inf]", "[-0.0]", "[1, -0.0]"]) {
      expect(fastDecodeSidecar(Toml.parse(`${base}[[tests]]\ntype = "accepted_values"\ncolumn = "k"\nvalues = ${values}\n`))).toBeUndefined()
    }
    expect(fastDecodeSidecar(Toml.parse(`${base}[[tests]]\ntype = "accepted_values"\ncolumn = "k"\nvalues = [0.0, 1.5]\n`))).toBeDefined()
    expect(fastDecodeSidecar(Toml.parse(`${base}[tags]\n"__proto__" = "x"\n`))).toBeUndefined()
  })

  it("declines any sidecar or contract nested deeper than a few levels, wherever the depth is", () => {
    fc.assert(
      fc.property(
        fc.oneof(sidecar.map((d) => ["sidecar", d] as const), contract.map((d) => ["contract", d] as const)),
        fc.nat(),
        fc.integer({ min: 5, max: MAX_NESTING + 4 }),
        fc.constantFrom<unknown>("a", 1, true),
        ([kind, data], at, depth, leaf) => {
          const copy = structuredClone(data) as Record<string, unknown>
          const places = everyPlace(copy)
          if (places.length === 0) return
          const [container, key] = places[at % places.length]!
          ;(container as Record<string | number, unknown>)[key] = deepValue(depth, leaf)
          const decoded = kind === "sidecar" ? fastDecodeSidecar(copy) : fastDecodeContract(copy)
          expect(Option.isSome(tooDeep(copy, 4)) ? decoded : undefined).toBeUndefined()
        }
      ),
      { numRuns: 2000 }
    )
  })
})
