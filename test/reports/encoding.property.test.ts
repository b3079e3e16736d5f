import { Chunk, Effect, Stream } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { encodeJson, encodeJsonStreamingArray } from "../../src/render/json"
import { AuditListOutput } from "../../src/schemas/audit"
import { LedgerRow } from "../../src/schemas/ledger"
import { canonicalRow, chainedFields, rowHash, rowHashFromValues, rowHashReference, VERIFY_COLUMNS } from "../../src/services/Ledger/chain"
import { canonicalJson } from "../../src/services/Artifacts/artifacts"

const text = fc.string({ unit: "binary", maxLength: 40 })
const row: fc.Arbitrary<LedgerRow> = fc.record({
  decision_ref: text,
  kind: fc.constantFrom("evaluation", "escalation", "freeze", "unfreeze", "verification", "approval", "refusal"),
  timestamp: text,
  principal: fc.constantFrom("human", "agent"),
  principal_id: fc.option(text, { nil: null }),
  principal_id_source: fc.option(fc.constantFrom("flag", "env", "mcp_profile", "default"), { nil: null }),
  principal_id_verified: fc.constant(false as const),
  target_principal: fc.option(fc.constantFrom("human", "agent"), { nil: null }),
  capability: fc.option(text, { nil: null }),
  model: fc.option(text, { nil: null }),
  effect: fc.option(fc.constantFrom("allow", "require_review", "deny"), { nil: null }),
  rule_id: fc.option(fc.integer(), { nil: null }),
  plan_id: fc.option(text, { nil: null }),
  reason: fc.option(text, { nil: null })
})

describe("report encodings agree with their definitions", () => {
  it("canonicalRow is canonicalJson of the chained fields, and rowHash its hash", () => {
    fc.assert(
      fc.property(row, fc.string({ unit: fc.constantFrom(..."0123456789abcdef"), minLength: 64, maxLength: 64 }), (r, previous) => {
        expect(canonicalRow(r)).toBe(canonicalJson(chainedFields(r)))
        expect(rowHash(previous, r)).toBe(rowHashReference(previous, r))
        expect(rowHashFromValues(previous, VERIFY_COLUMNS.map((k) => r[k]))).toBe(rowHash(previous, r))
      }),
      { numRuns: 300 }
    )
  })

  it("the streamed audit document is encodeJson of the whole document, byte for byte", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(row, { maxLength: 8 }), fc.nat(5), fc.option(text, { nil: null }), async (entries, skipped, actor) => {
        const head: AuditListOutput = { command: "audit", since: null, actor, product: null, model: null, entries: [], unattributed_skipped: skipped }
        const whole = await Effect.runPromise(encodeJson(AuditListOutput, { ...head, entries }))
        const streamed = await Effect.runPromise(
          Stream.runCollect(encodeJsonStreamingArray(AuditListOutput, head, "entries", LedgerRow, Stream.fromIterable(entries))).pipe(Effect.map((c) => Chunk.join(c, "")))
        )
        expect(streamed).toBe(whole)
      }),
      { numRuns: 200 }
    )
  })
})
