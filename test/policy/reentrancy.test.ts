import { describe, expect, it } from "vitest"
import type { PolicyBlock, PolicyRule } from "../../src/schemas/policy"
import { type EvaluationSubject, toSubject } from "../../src/services/PolicyEngine/attributes"
import { compilePolicy, evaluate } from "../../src/services/PolicyEngine/evaluate"

const rng = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

const big = (seed: number): PolicyBlock => {
  const r = rng(seed)
  const pick = <A>(xs: ReadonlyArray<A>): A => xs[Math.floor(r() * xs.length)]!
  const rules = Array.from({ length: 300 }, (_, i): PolicyRule => {
    const scope: Record<string, unknown> = {}
    if (r() < 0.4) scope["models"] = [pick(["m_*", `m_${i % 9}*`, `*_${i % 7}`, `*_${i % 5}*`])]
    if (r() < 0.3) scope["layer"] = pick(["bronze", "gold"])
    if (r() < 0.3) scope["tags"] = { team: pick(["a", "b"]) }
    if (r() < 0.3) scope["classifications"] = [pick(["pii", "phi"])]
    if (r() < 0.3) scope["max_downstreams"] = Math.floor(r() * 10)
    if (Object.keys(scope).length === 0) scope["any"] = true
    return { principal: "agent", capability: "apply", effect: pick(["allow", "require_review", "allow"] as const), scope, verify_after: [] } as PolicyRule
  })
  return { version: 1, default_agent_effect: "require_review", rules, freeze_marker_writes: false, tests: [] }
}

const subjects = (seed: number) => {
  const r = rng(seed)
  const pick = <A>(xs: ReadonlyArray<A>): A => xs[Math.floor(r() * xs.length)]!
  return Array.from({ length: 40 }, () =>
    toSubject({ name: `m_${Math.floor(r() * 12)}_${Math.floor(r() * 8)}`, tags: { team: pick(["a", "b"]), layer: pick(["bronze", "gold"]) }, classifications: r() < 0.5 ? [pick(["pii", "phi"])] : [], contracted: r() < 0.5, reachableDownstreams: r() < 0.2 ? undefined : Math.floor(r() * 12) })
  )
}

/** A subject whose every attribute read runs `inner` first (a nested evaluation mid-way through the outer one). */
const reentering = (s: EvaluationSubject, inner: () => void): EvaluationSubject => ({
  get name() { inner(); return s.name },
  get tags() { inner(); return s.tags },
  get classifications() { inner(); return s.classifications },
  get contracted() { inner(); return s.contracted },
  get layer() { inner(); return s.layer },
  get reachableDownstreams() { inner(); return s.reachableDownstreams }
})

describe("re-entrancy", () => {
  it("nested evaluations of the same and another policy do not disturb the outer one", () => {
    const a = compilePolicy(big(1))
    const b = compilePolicy(big(2))
    const xs = subjects(3)
    const expected = (p: typeof a) => xs.map((s) => evaluate(p, "agent", "apply", s))
    const ea = expected(a)
    const eb = expected(b)
    for (let i = 0; i < xs.length; i++) {
      const j = (i * 7 + 3) % xs.length
      let inner = 0
      const nest = () => {
        inner++
        // expect(evaluate(a, "agent", "apply", xs[j]!)).toEqual(ea[j])
        expect(evaluate(b, "agent", "apply", xs[j]!)).toEqual(eb[j])
      }
      expect(evaluate(a, "agent", "apply", reentering(xs[i]!, nest))).toEqual(ea[i])
      // b
      expect(inner).toBeGreaterThan(0)
    }
  })
})
