import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { toSubject } from "../../src/services/PolicyEngine/attributes"
import { applyDynamic, ledgerFreezes, markerFreezes } from "../../src/services/PolicyEngine/dynamic"
import { compilePolicy, effectRank, evaluate } from "../../src/services/PolicyEngine/evaluate"
import { attrs, capability, ledgerRow, marker, policy, principal, T0 } from "./support/arbitraries"

describe("freezes and budgets only tighten", () => {
  it("never move an effect toward allow", () => {
    fc.assert(
      fc.property(
        policy,
        principal,
        capability,
        attrs,
        fc.array(ledgerRow, { maxLength: 30 }),
        fc.array(marker, { maxLength: 4 }),
        fc.integer({ min: 0, max: 12 * 86_400_000 }),
        (block, who, cap, model, rows, markers, nowOffset) => {
          const compiled = compilePolicy(block)
          const subject = toSubject(model)
          const base = evaluate(compiled, who, cap, subject)
          const freezes = [...ledgerFreezes(rows), ...markerFreezes(markers)]
          const after = applyDynamic(base, { policy: compiled, principal: who, subject, freezes, rows, now: new Date(T0 + nowOffset) })
          expect(effectRank(after.effect)).toBeGreaterThanOrEqual(effectRank(base.effect))
          expect(after.matched_rule).toBe(base.matched_rule)
          expect(after.reason.startsWith(base.reason)).toBe(true)
        }
      ),
      { numRuns: 2000 }
    )
  })
})
