import { Effect } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { compiledModelJson, encodeJson, encodeJsonWithArray, encodeJsonWithArrayBytes, schemaItemJson } from "../../src/render/json"
import { CompiledModelOutput, CompileOutput } from "../../src/schemas/pipeline"

const text = fc.string({ unit: "binary", maxLength: 20 })
const count = fc.oneof(fc.nat(), fc.integer({ min: -5, max: 5 }), fc.double({ noNaN: false }))
const model: fc.Arbitrary<CompileOutput["models"][number]> = fc
  .record({
    name: text,
    target: text,
    strategy: text,
    depth: count,
    layer: fc.option(text, { nil: undefined }),
    contracted: fc.boolean(),
    depends_on: fc.array(text, { maxLength: 4 }),
    sources: fc.array(text, { maxLength: 3 }),
    downstreams: count,
    reachable_downstreams: count
  })
  .map(({ layer, ...m }) => (layer === undefined ? m : { ...m, layer }))
const finding: fc.Arbitrary<CompileOutput["findings"][number]> = fc.record({
  code: text,
  severity: fc.constant("warning" as const),
  subject: text,
  message: text,
  suggestion: text
})

describe("pcli compile's JSON writer", () => {
  it("compiledModelJson writes what the schema writes, at any indentation", () => {
    const reference = schemaItemJson(CompiledModelOutput)
    fc.assert(
      fc.property(model, fc.constantFrom("\n", "\n    ", "\n      "), (m, newline) => {
        expect(compiledModelJson(m, newline)).toBe(reference(m, newline))
      }),
      { numRuns: 500 }
    )
  })

  it("the whole output spliced with it is encodeJson's, byte for byte", () => {
    fc.assert(
      fc.property(text, fc.array(model, { maxLength: 6 }), fc.array(fc.array(text, { maxLength: 3 }), { maxLength: 3 }), fc.array(finding, { maxLength: 2 }), (dir, models, layers, findings) => {
        const out: CompileOutput = {
          command: "compile",
          models_dir: dir,
          model_count: models.length,
          execution_order: models.map((m) => m.name),
          execution_layers: layers,
          models,
          findings
        }
        const whole = Effect.runSync(encodeJson(CompileOutput, out))
        expect(Effect.runSync(encodeJsonWithArray(CompileOutput, { ...out, models: [] }, "models", compiledModelJson, models))).toBe(whole)
        const bytes = Effect.runSync(encodeJsonWithArrayBytes(CompileOutput, { ...out, models: [] }, "models", compiledModelJson, models))
        expect(Buffer.from(bytes).equals(Buffer.from(whole, "utf8"))).toBe(true)
        // The name lists written in as plain arrays (`pcli compile`'s way).
        const plain = { execution_order: out.execution_order, execution_layers: out.execution_layers }
        const spliced = Effect.runSync(
          encodeJsonWithArrayBytes(CompileOutput, { ...out, execution_order: [], execution_layers: [], models: [] }, "models", compiledModelJson, models, plain)
        )
        expect(Buffer.from(spliced).toString("utf8")).toBe(whole)
      }),
      { numRuns: 300 }
    )
  })

  it("the bytes written chunk by chunk are the text's UTF-8, across many chunks and astral characters", () => {
    fc.assert(
      fc.property(fc.array(model, { minLength: 1, maxLength: 3 }), fc.integer({ min: 500, max: 3000 }), (seeds, n) => {
        // Long names with astral characters: chunks end between items, never inside a surrogate pair.
        const models = Array.from({ length: n }, (_, i) => ({ ...seeds[i % seeds.length]!, name: `m${i}\u{1F600}é${"x".repeat(i % 97)}` }))
        const out: CompileOutput = { command: "compile", models_dir: "models", model_count: n, execution_order: [], execution_layers: [], models, findings: [] }
        const bytes = Effect.runSync(encodeJsonWithArrayBytes(CompileOutput, { ...out, models: [] }, "models", compiledModelJson, models))
        expect(Buffer.from(bytes).equals(Buffer.from(Effect.runSync(encodeJson(CompileOutput, out)), "utf8"))).toBe(true)
      }),
      { numRuns: 8 }
    )
  })
})
