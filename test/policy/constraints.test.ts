import { describe, expect, it } from "vitest"
import { type PolicyRule, REFINEMENTS, ScopeTable } from "../../src/schemas/policy"
import { toSubject } from "../../src/services/PolicyEngine/attributes"
import { makeIndexedBucket, selectIndexed } from "../../src/services/PolicyEngine/bucket"
import { CONSTRAINT_KINDS, constraintSet, type FitsInt32 } from "../../src/services/PolicyEngine/constraints"
import { compileRule, selectPlain } from "../../src/services/PolicyEngine/plain"
import { rng } from "./support/crowded"

describe("constraint kinds", () => {
  it("every ScopeTable field that constrains a match has a constraint kind (a new scope key must add one)", () => {
    const constraining = Object.keys(ScopeTable.fields).filter((field) => field !== "any" && field !== "max_downstreams")
    expect(CONSTRAINT_KINDS.map((kind) => kind.name).sort()).toEqual([...constraining, "refinement"].sort())
  })

  it("each kind is its own bit of the constraint set", () => {
    const one: Record<string, ScopeTable> = {
      models: { models: ["m"] },
      tags: { tags: { team: "core" } },
      classifications: { classifications: ["pii"] },
      exclude_classifications: { exclude_classifications: ["pii"] },
      contracted: { contracted: false },
      layer: { layer: "gold" }
    }
    CONSTRAINT_KINDS.forEach((kind, bit) => {
      const set = kind.name === "refinement" ? constraintSet({ any: true }, REFINEMENTS[0]!) : constraintSet(one[kind.name]!, "apply")
      expect(set).toBe(1 << bit)
    })
    expect(constraintSet({ any: true, max_downstreams: 3 }, "apply")).toBe(0)
  })

  it("sizes that fit an int32 constraint set are checked by the type checker", () => {
    const seven: FitsInt32<typeof CONSTRAINT_KINDS.length> = true
    const thirtyTwo: FitsInt32<32> = true
    // @ts-expect-error a 33rd kind no longer fits an int32 constraint set
    const thirtyThree: FitsInt32<33> = true
    expect([seven, thirtyTwo, thirtyThree]).toEqual([true, true, true])
  })

  it("the index agrees with the plain scan on buckets with more constraint sets than seven kinds allow", () => {
    // Constraint sets over 11 bits, as four more scope keys would give: far more than 128 distinct sets.
    const r = rng(9)
    const rules = Array.from({ length: 600 }, (_, id) => {
      const ceiling = r() < 0.4 ? { max_downstreams: Math.floor(r() * 8) } : {}
      const rule: PolicyRule = {
        principal: "agent",
        capability: "apply",
        effect: r() < 0.3 ? "require_review" : "allow",
        scope: r() < 0.3 ? { any: true, ...ceiling } : { models: [`m_${Math.floor(r() * 6)}*`], ...ceiling },
        verify_after: []
      }
      return { ...compileRule(rule, id), constraints: Math.floor(r() * 2048) }
    })
    expect(new Set(rules.map((x) => x.constraints)).size).toBeGreaterThan(2 * 128)
    const bucket = makeIndexedBucket(rules)
    const outcomes = new Set<string>()
    for (let k = 0; k < 300; k++) {
      const s = toSubject({ name: `m_${k % 7}`, tags: {}, classifications: [], contracted: false, reachableDownstreams: r() < 0.2 ? undefined : Math.floor(r() * 10) })
      const plain = selectPlain(rules, s)
      outcomes.add(`${plain.winner?.id} ${plain.survivors} ${plain.capped?.id}`)
      expect(selectIndexed(bucket, s)).toEqual(plain)
    }
    expect(outcomes.size).toBeGreaterThan(10)
  })
})
