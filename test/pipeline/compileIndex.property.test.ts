import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { asciiJson, indexFileFor, readIndex, stampWidth, type StoredSummary, writeIndex } from "../../src/services/Project/cache"

// The index's summaries section, read one summary at a time (a warm compile compares only the
// changed models' summaries) and written back as it was read.

const text = fc.string({ unit: "binary", maxLength: 8 })
const ref = fc.record({ catalog: fc.option(text, { nil: undefined }), schema: fc.option(text, { nil: undefined }), table: text })
const summary: fc.Arbitrary<StoredSummary> = fc.tuple(
  text,
  text,
  text,
  fc.constant({ type: "full_refresh" as const }),
  fc.array(text, { maxLength: 3 }),
  fc.array(fc.record({ schema: text, table: text }), { maxLength: 2 }),
  fc.option(text, { nil: null }),
  fc.constantFrom(0 as const, 1 as const),
  fc.array(ref, { maxLength: 3 }),
  fc.dictionary(text, text, { maxKeys: 2 })
)

describe("compile index summaries", () => {
  it("gives each summary's stored text alone, all of them parsed, and rewrites the section byte for byte", () => {
    const root = mkdtempSync(join(tmpdir(), "pcli-index-"))
    const modelsDir = join(root, "models")
    try {
      fc.assert(
        fc.property(fc.array(summary, { maxLength: 12 }), text, (summaries, rendered) => {
          const names = summaries.map((_, i) => `m${i}`)
          const stamps = new Float64Array(names.length * stampWidth).fill(1)
          writeIndex(modelsDir, { names, stamps, summaries, renderKey: "k", dirStamp: null, text: rendered })
          const first = readFileSync(indexFileFor(modelsDir))
          const index = readIndex(modelsDir)!
          expect(index).toBeDefined()
          expect(index.summaries()).toEqual(JSON.parse(JSON.stringify(summaries)))
          summaries.forEach((s, i) => expect(index.summaryText(i)).toBe(asciiJson(s)))
          writeIndex(modelsDir, { names, stamps, summaries: index.summaryTexts, renderKey: "k", dirStamp: null, text: index.text() })
          expect(readFileSync(indexFileFor(modelsDir)).equals(first)).toBe(true)
        }),
        { numRuns: 200 }
      )
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  })
})
