import { NodeContext } from "@effect/platform-node"
import { Effect, Either, Layer } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { DataTest } from "../../src/schemas/model"
import { describeTest, runDataTests, testQuery } from "../../src/services/Runner/tests"
import { layer as embeddedLayer } from "../../src/services/Warehouse/embedded"
import { Warehouse } from "../../src/services/Warehouse/Warehouse"

const severity = fc.constantFrom("error" as const, "warning" as const)
const filter = fc.option(fc.constantFrom("k > 1", "label <> 'b'", "id IS NOT NULL"), { nil: undefined })
const column = fc.constantFrom("id", "k", "label")
const dataTest: fc.Arbitrary<DataTest> = fc.oneof(
  fc.record({ type: fc.constant("not_null" as const), column, severity, filter }),
  fc.record({ type: fc.constant("unique" as const), column, severity, filter }),
  fc.record({ type: fc.constant("composite" as const), kind: fc.constant("unique" as const), columns: fc.constant(["id", "k"]), severity, filter }),
  fc.record({ type: fc.constant("accepted_values" as const), column: fc.constant("k"), values: fc.constant([0, 1, 2] as [number, ...Array<number>]), severity, filter }),
  fc.record({ type: fc.constant("expression" as const), expression: fc.constantFrom("id >= 0", "k < 3", "label IS NOT NULL"), severity, filter }),
  fc.record({
    type: fc.constant("row_count_range" as const),
    min: fc.option(fc.integer({ min: 0, max: 6 }), { nil: undefined }),
    max: fc.option(fc.integer({ min: 0, max: 6 }), { nil: undefined }),
    severity,
    filter
  })
).map((t) => Object.fromEntries(Object.entries(t).filter(([, v]) => v !== undefined)) as DataTest)

const row = fc.tuple(
  fc.option(fc.integer({ min: -2, max: 4 }), { nil: null }),
  fc.option(fc.integer({ min: 0, max: 4 }), { nil: null }),
  fc.option(fc.constantFrom("a", "b"), { nil: null })
)
const lit = (v: number | string | null) => (v === null ? "NULL" : typeof v === "string" ? `'${v}'` : String(v))

/** What the tests did before fusion: one query each, judged in order. */
const sequential = (tests: ReadonlyArray<DataTest>, relation: string) =>
  Effect.gen(function* () {
    const wh = yield* Warehouse
    const warnings: Array<string> = []
    for (const test of tests) {
      const failing = Number((yield* wh.execute(testQuery(test, relation))).rows[0]?.[0] ?? 0)
      if (failing === 0) continue
      if (test.severity === "error") return { failed: describeTest(test), failing }
      warnings.push(`test ${describeTest(test)} failed (${failing} offending)`)
    }
    return { warnings }
  })

describe("fused data tests", () => {
  it("give the same verdict, count and warnings as running each test alone", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(row, { maxLength: 8 }), fc.array(dataTest, { minLength: 1, maxLength: 6 }), (rows, tests) =>
        Effect.runPromise(
          Effect.gen(function* () {
            const wh = yield* Warehouse
            const values = rows.map((r) => `(${r.map(lit).join(", ")})`).join(", ")
            yield* wh.execute("CREATE OR REPLACE TABLE t (id INTEGER, k INTEGER, label VARCHAR)")
            if (rows.length > 0) yield* wh.execute(`INSERT INTO t VALUES ${values}`)
            const expected = yield* sequential(tests, "t")
            const fused = yield* Effect.either(runDataTests("m", tests, "t"))
            if ("failed" in expected) {
              expect(Either.isLeft(fused)).toBe(true)
              const error = Either.isLeft(fused) ? fused.left : undefined
              expect(error?._tag === "DataTestFailed" ? [error.test, error.failing] : error).toEqual([expected.failed, expected.failing])
            } else {
              expect(fused).toEqual(Either.right(expected.warnings))
            }
          }).pipe(Effect.provide(Layer.provide(embeddedLayer(":memory:"), NodeContext.layer)))
        )
      ),
      { numRuns: 60 }
    )
  }, 120_000)
})
