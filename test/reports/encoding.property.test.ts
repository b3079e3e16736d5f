import { Chunk, Effect, Either, Stream } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { encodeJson, encodeJsonStreamingArray, encodeJsonWithArray, ledgerRowJson, schemaItemJson } from "../../src/render/json"
import { AuditListOutput } from "../../src/schemas/audit"
import { LedgerRow } from "../../src/schemas/ledger"
import { canonicalRow, chainedFields, rowHash, rowHashFromValues, rowHashReference, VERIFY_COLUMNS } from "../../src/services/Ledger/chain"
import { canonicalJson } from "../../src/services/Artifacts/artifacts"
import { decodeStored, decodeStoredFast, decodeStoredReference, STORED_COLUMNS, storedObject } from "../../src/services/Ledger/rows"

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

  it("the streamed and the spliced audit documents are encodeJson of the whole document, byte for byte", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(row, { maxLength: 8 }), fc.nat(5), fc.option(text, { nil: null }), fc.boolean(), async (entries, skipped, actor, fast) => {
        const head: AuditListOutput = { command: "audit", since: null, actor, product: null, model: null, entries: [], unattributed_skipped: skipped }
        const itemJson = fast ? ledgerRowJson : schemaItemJson(LedgerRow)
        const whole = await Effect.runPromise(encodeJson(AuditListOutput, { ...head, entries }))
        const streamed = await Effect.runPromise(
          Stream.runCollect(encodeJsonStreamingArray(AuditListOutput, head, "entries", itemJson, Stream.fromIterable(entries))).pipe(Effect.map((c) => Chunk.join(c, "")))
        )
        expect(streamed).toBe(whole)
        expect(await Effect.runPromise(encodeJsonWithArray(AuditListOutput, head, "entries", itemJson, entries))).toBe(whole)
      }),
      { numRuns: 200 }
    )
  })

  it("ledgerRowJson writes what the schema writes, at any indentation", () => {
    const reference = schemaItemJson(LedgerRow)
    fc.assert(
      fc.property(row, fc.constantFrom("\n", "\n    ", "\n      "), (r, newline) => {
        expect(ledgerRowJson(r, newline)).toBe(reference(r, newline))
      }),
      { numRuns: 500 }
    )
  })
})

/** A stored value for a column: mostly what the schema accepts, sometimes what it must refuse. */
const storedValue = (valid: fc.Arbitrary<unknown>) =>
  fc.oneof(
    { weight: 8, arbitrary: valid },
    { weight: 1, arbitrary: fc.constantFrom<unknown>(null, undefined, 0, 1, 1.5, -0, "", "evaluation", "human", "flag", "deny", 2 ** 53, true, false) }
  )

const storedRow = row.chain((r) =>
  fc.tuple(...STORED_COLUMNS.map((column) => storedValue(fc.constant(column === "principal_id_verified" ? 0 : r[column])))).map((values) => values as ReadonlyArray<unknown>)
)

describe("the ledger's row decoder agrees with its schema", () => {
  it("the fast decoder accepts exactly what the schema accepts, with the same value and key order", () => {
    fc.assert(
      fc.property(storedRow, (values) => {
        const fast = decodeStoredFast(values)
        const reference = decodeStoredReference(storedObject(values))
        expect(fast !== undefined, JSON.stringify(values)).toBe(Either.isRight(reference))
        if (fast !== undefined && Either.isRight(reference)) {
          expect(fast).toEqual(reference.right)
          expect(Object.keys(fast)).toEqual(Object.keys(reference.right))
        }
        const combined = decodeStored(values)
        expect(decodeStored([7, ...values], 1)).toEqual(combined)
        expect(Either.isRight(combined)).toBe(Either.isRight(reference))
        if (Either.isLeft(combined) && Either.isLeft(reference)) expect(combined.left.message).toBe(reference.left.message)
      }),
      { numRuns: 1000 }
    )
  })
})
