import fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { PolicyBlock } from "../../src/schemas/policy"
import { type EvaluationSubject, toSubject } from "../../src/services/PolicyEngine/attributes"
import { type CompiledPolicy, compilePolicy, evaluate, type Verdict } from "../../src/services/PolicyEngine/evaluate"
import { bigBucket, bigSubjects, crowdedAttrs, crowdedPolicy } from "./support/crowded"

/** A subject whose every attribute read first runs `inner`: another evaluation starts in the middle of this one. */
const reentering = (s: EvaluationSubject, inner: () => void): EvaluationSubject => ({
  get name() {
    inner()
    return s.name
  },
  get tags() {
    inner()
    return s.tags
  },
  get classifications() {
    inner()
    return s.classifications
  },
  get contracted() {
    inner()
    return s.contracted
  },
  get layer() {
    inner()
    return s.layer
  },
  get reachableDownstreams() {
    inner()
    return s.reachableDownstreams
  }
})

const EVALUATORS = [
  ["plain", Infinity],
  ["index", 1]
] as const

const apply = (policy: CompiledPolicy, s: EvaluationSubject): Verdict => evaluate(policy, "agent", "apply", s)

/**
 * Evaluates every subject on `outer` while each attribute read evaluates another subject on
 * `outer` itself and on `other`; every verdict, outer and nested, must be the undisturbed one.
 * Returns how many nested rounds ran (an evaluation decided without reading the subject has none).
 */
const checkNested = (outer: CompiledPolicy, other: CompiledPolicy, subjects: ReadonlyArray<EvaluationSubject>): number => {
  const alone = subjects.map((s) => apply(outer, s))
  const otherAlone = subjects.map((s) => apply(other, s))
  let nested = 0
  subjects.forEach((s, i) => {
    const j = (i * 7 + 3) % subjects.length
    let reads = 0
    // Nests on reads 1, 2, 4, 8, …: spread over the whole evaluation without making it quadratic.
    const inner = () => {
      if ((++reads & (reads - 1)) !== 0) return
      nested++
      expect(apply(outer, subjects[j]!)).toEqual(alone[j])
      expect(apply(other, subjects[j]!)).toEqual(otherAlone[j])
    }
    expect(apply(outer, reentering(s, inner))).toEqual(alone[i])
  })
  return nested
}

describe("evaluation is re-entrant", () => {
  for (const [evaluator, indexThreshold] of EVALUATORS) {
    it(`nested evaluations of the same and of another policy leave the outer one intact (${evaluator})`, () => {
      const a = compilePolicy(bigBucket(1, 300), { indexThreshold })
      const b = compilePolicy(bigBucket(2, 300), { indexThreshold })
      const subjects = bigSubjects(3, 60)
      expect(checkNested(a, b, subjects)).toBeGreaterThan(subjects.length)
      expect(checkNested(b, a, subjects)).toBeGreaterThan(subjects.length)
    })
  }

  it("nesting across evaluators and generated crowded policies", () => {
    let nested = 0
    fc.assert(
      fc.property(crowdedPolicy, crowdedPolicy, fc.array(crowdedAttrs, { minLength: 2, maxLength: 8 }), (x: PolicyBlock, y: PolicyBlock, models) => {
        const subjects = models.map(toSubject)
        nested += checkNested(compilePolicy(x, { indexThreshold: 1 }), compilePolicy(y, { indexThreshold: 1 }), subjects)
        nested += checkNested(compilePolicy(x, { indexThreshold: 1 }), compilePolicy(x, { indexThreshold: Infinity }), subjects)
        nested += checkNested(compilePolicy(x), compilePolicy(y), subjects)
      }),
      { numRuns: 25 }
    )
    expect(nested).toBeGreaterThan(100)
  })

  it("an evaluation abandoned half-way (a throwing attribute) does not poison later ones", () => {
    for (const [, indexThreshold] of EVALUATORS) {
      const policy = compilePolicy(bigBucket(4, 300), { indexThreshold })
      const subjects = bigSubjects(5, 40)
      const alone = subjects.map((s) => apply(policy, s))
      subjects.forEach((s, i) => {
        let total = 0
        apply(policy, reentering(s, () => total++))
        // Throws on the k-th attribute read, so evaluations stop at every stage in turn.
        let reads = 0
        const failing = reentering(s, () => {
          if (++reads === 1 + (i % total)) throw new Error("attribute source failed")
        })
        expect(() => apply(policy, failing)).toThrow("attribute source failed")
        expect(apply(policy, subjects[(i + 1) % subjects.length]!)).toEqual(alone[(i + 1) % subjects.length])
      })
    }
  })
})
