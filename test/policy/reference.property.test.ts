import fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { Capability, PolicyBlock, PolicyEffect, PolicyRule, Principal } from "../../src/schemas/policy"
import { type EvaluationSubject, toSubject } from "../../src/services/PolicyEngine/attributes"
import { compilePolicy, evaluate } from "../../src/services/PolicyEngine/evaluate"
import { globToRegExp } from "../../src/services/PolicyEngine/glob"
import { attrs, capability, policy, principal } from "./support/arbitraries"

// A direct, unindexed transcription of the reference algorithm: the indexed evaluator must agree.
const RANK: Record<PolicyEffect, number> = { allow: 0, require_review: 1, deny: 2 }
const REFINED = ["schema_change.additive", "schema_change.breaking", "value_change"]

const naive = (block: PolicyBlock, who: Principal, cap: Capability, s: EvaluationSubject): [PolicyEffect, number | null] => {
  if (cap === "read") return ["allow", null]
  const covers = (r: PolicyRule) => r.capability === cap || ((r.capability === "apply" || r.capability === "promote") && REFINED.includes(cap))
  const sat = (r: PolicyRule): Array<string> | undefined => {
    const sc = r.scope!
    const keys: Array<string> = []
    if ((sc.models ?? []).length > 0) {
      if (!sc.models!.some((g) => globToRegExp(g).test(s.name))) return undefined
      keys.push("models")
    }
    if (Object.keys(sc.tags ?? {}).length > 0) {
      if (!Object.entries(sc.tags!).every(([k, v]) => Object.prototype.hasOwnProperty.call(s.tags, k) && s.tags[k] === v)) return undefined
      keys.push("tags")
    }
    if ((sc.classifications ?? []).length > 0) {
      if (!sc.classifications!.some((c) => s.classifications.has(c))) return undefined
      keys.push("classifications")
    }
    if ((sc.exclude_classifications ?? []).length > 0) {
      if (sc.exclude_classifications!.some((c) => s.classifications.has(c))) return undefined
      keys.push("exclude")
    }
    if (sc.contracted !== undefined) {
      if (sc.contracted !== s.contracted) return undefined
      keys.push("contracted")
    }
    if (sc.layer !== undefined) {
      if (sc.layer !== s.layer) return undefined
      keys.push("layer")
    }
    if (REFINED.includes(r.capability)) keys.push("refinement")
    return keys
  }
  const cands = block.rules.flatMap((r, id) => {
    if (r.principal !== who || !covers(r)) return []
    const keys = sat(r)
    return keys === undefined ? [] : [{ r, id, keys }]
  })
  if (cands.length === 0) return [who === "human" ? "allow" : block.default_agent_effect, null]
  const deny = cands.find((c) => c.r.effect === "deny")
  if (deny !== undefined) return ["deny", deny.id]
  const breached = (c: (typeof cands)[number]) =>
    c.r.effect === "allow" && c.r.scope!.max_downstreams !== undefined && (s.reachableDownstreams === undefined || s.reachableDownstreams > c.r.scope!.max_downstreams)
  const post = (c: (typeof cands)[number]): PolicyEffect => (breached(c) ? "require_review" : c.r.effect)
  const subset = (a: Array<string>, b: Array<string>) => a.length < b.length && a.every((k) => b.includes(k))
  const survivors = cands.filter((c) => !cands.some((o) => subset(c.keys, o.keys)))
  const winner = survivors.reduce((a, b) => (RANK[post(b)] > RANK[post(a)] ? b : a))
  const effect = post(winner)
  return [effect === "allow" && cands.some(breached) ? "require_review" : effect, winner.id]
}

describe("indexed evaluator", () => {
  it("agrees with a naive transcription of the algorithm", () => {
    fc.assert(
      fc.property(policy, principal, capability, attrs, (block, who, cap, model) => {
        const s = toSubject(model)
        const verdict = evaluate(compilePolicy(block), who, cap, s)
        expect([verdict.effect, verdict.matched_rule]).toEqual(naive(block, who, cap, s))
      }),
      { numRuns: 5000 }
    )
  })
})
