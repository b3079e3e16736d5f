import fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { Capability, PolicyBlock, Principal } from "../../src/schemas/policy"
import { type EvaluationSubject, toSubject } from "../../src/services/PolicyEngine/attributes"
import { compilePolicy, evaluate, INDEX_THRESHOLD, type Verdict } from "../../src/services/PolicyEngine/evaluate"
import { attrs, capability, policy, principal } from "./support/arbitraries"
import { bigBucket, bigSubjects, crowdedAttrs, crowdedPolicy } from "./support/crowded"

// The plain evaluator (plain.ts, a file-order scan) is the reference; the bitset index must
// give the very same verdict — effect, matched rule and reason — on every bucket it may serve.
const compileAll = (block: PolicyBlock) => ({
  plain: compilePolicy(block, { indexThreshold: Infinity }),
  index: compilePolicy(block, { indexThreshold: 1 }),
  production: compilePolicy(block)
})

const verdicts = (compiled: ReturnType<typeof compileAll>, who: Principal, cap: Capability, s: EvaluationSubject): Record<keyof typeof compiled, Verdict> => ({
  plain: evaluate(compiled.plain, who, cap, s),
  index: evaluate(compiled.index, who, cap, s),
  production: evaluate(compiled.production, who, cap, s)
})

const expectSame = (v: Record<string, Verdict>) => {
  expect(v["index"]).toEqual(v["plain"])
  expect(v["production"]).toEqual(v["plain"])
}

describe("plain evaluator and bitset index", () => {
  it("the compile options really select the evaluator", () => {
    const block = bigBucket(1, 40)
    const { plain, index, production } = compileAll(block)
    const bucket = (c: typeof plain) => c.buckets.get("agent")!.get("apply")!
    expect(bucket(plain).indexed).toBeUndefined()
    expect(bucket(index).indexed).toBeDefined()
    expect(bucket(production).indexed === undefined).toBe(40 < INDEX_THRESHOLD)
    expect(compilePolicy(bigBucket(1, INDEX_THRESHOLD - 1)).buckets.get("agent")!.get("apply")!.indexed).toBeUndefined()
    expect(compilePolicy(bigBucket(1, INDEX_THRESHOLD)).buckets.get("agent")!.get("apply")!.indexed).toBeDefined()
  })

  it("agree on small policies (verdicts and reasons)", () => {
    fc.assert(
      fc.property(policy, fc.array(fc.tuple(principal, capability, attrs), { minLength: 1, maxLength: 8 }), (block, requests) => {
        const compiled = compileAll(block)
        for (const [who, cap, model] of requests) expectSame(verdicts(compiled, who, cap, toSubject(model)))
      }),
      { numRuns: 1000 }
    )
  })

  it("agree on crowded buckets (shared glob prefixes/suffixes, many constraint sets, multi-word sets, sticky caps)", () => {
    let indexed = 0
    const shapes = new Set<string>()
    fc.assert(
      fc.property(crowdedPolicy, fc.array(fc.tuple(principal, capability, crowdedAttrs), { minLength: 1, maxLength: 20 }), (block, requests) => {
        const compiled = compileAll(block)
        for (const [who, cap, model] of requests) {
          if (compiled.production.buckets.get(who)?.get(cap)?.indexed !== undefined) indexed++
          const v = verdicts(compiled, who, cap, toSubject(model))
          expectSame(v)
          shapes.add(v.plain.reason.replace(/\d+/g, "N"))
        }
      }),
      { numRuns: 500 }
    )
    // The production compile really used both evaluators, and every selection path was reached.
    expect(indexed).toBeGreaterThan(100)
    for (const part of ["deny overrides", "most-specific match", "incomparable rules", "equally-specific rules", "degraded", "sticky safety cap", "no rule matched"]) {
      expect([...shapes].some((shape) => shape.includes(part))).toBe(true)
    }
  })

  it("agree on a 1,200-rule bucket with high-cardinality keys (sparse pass sets)", () => {
    const compiled = compileAll(bigBucket(42))
    const seen = new Set<string>()
    for (const s of bigSubjects(43, 400)) {
      const v = verdicts(compiled, "agent", "apply", s)
      expectSame(v)
      seen.add(v.plain.reason.replace(/\d+/g, "N"))
    }
    // The workload reaches denies, ties, incomparable rules, ceilings and sticky caps, not one path.
    for (const part of ["deny overrides", "incomparable rules", "degraded", "sticky safety cap"]) expect([...seen].some((shape) => shape.includes(part))).toBe(true)
  })
})
