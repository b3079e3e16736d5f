import { describe, expect, it } from "vitest"
import type { Capability, PolicyEffect, Principal } from "../../src/schemas/policy"
import type { ModelAttributes } from "../../src/services/PolicyEngine/attributes"
import { toSubject } from "../../src/services/PolicyEngine/attributes"
import { compilePolicy, evaluate } from "../../src/services/PolicyEngine/evaluate"
import { loadPolicy, model } from "./support/config"

interface Case {
  readonly name: string
  readonly rules: string
  readonly defaultAgent?: PolicyEffect
  readonly principal?: Principal
  readonly capability: Capability
  readonly model: ModelAttributes
  readonly effect: PolicyEffect
  readonly matched: number | null
  readonly reason: RegExp
}

const r = (principal: string, capability: string, effect: string, scope: string, extra = "") =>
  `[[policy.rules]]\nprincipal = "${principal}"\ncapability = "${capability}"\neffect = "${effect}"\nscope = ${scope}\n${extra}`

const orders = model({ name: "fct_orders", tags: { layer: "gold", team: "core" }, classifications: ["pii"], contracted: true, reachableDownstreams: 5 })
const events = model({ name: "stg_events", tags: { layer: "bronze" }, reachableDownstreams: undefined })
const small = model({ name: "stg_users", tags: { layer: "bronze" }, reachableDownstreams: 10 })
const big = model({ name: "stg_users", tags: { layer: "bronze" }, reachableDownstreams: 11 })

const cases: ReadonlyArray<Case> = [
  { name: "read short-circuits even a deny", rules: r("agent", "read", "deny", "{ any = true }"), capability: "read", model: orders, effect: "allow", matched: null, reason: /^read is always allowed \(short-circuit\)$/ },
  { name: "unmatched human is allowed", rules: r("agent", "apply", "deny", "{ any = true }"), principal: "human", capability: "apply", model: orders, effect: "allow", matched: null, reason: /^no rule matched; humans are not gated$/ },
  { name: "unmatched agent gets default_agent_effect", rules: "", capability: "apply", model: orders, effect: "require_review", matched: null, reason: /^no rule matched; default_agent_effect = require_review$/ },
  { name: "unmatched agent gets a configured default", rules: "", defaultAgent: "deny", capability: "gc", model: orders, effect: "deny", matched: null, reason: /default_agent_effect = deny/ },
  { name: "principal must match", rules: r("human", "apply", "deny", "{ any = true }"), capability: "apply", model: orders, effect: "require_review", matched: null, reason: /no rule matched/ },
  { name: "deny overrides a more specific allow; first deny in file order", rules: r("agent", "apply", "allow", '{ models = ["fct_orders"], contracted = true }') + r("agent", "apply", "deny", "{ any = true }") + r("agent", "apply", "deny", "{ contracted = true }"), capability: "apply", model: orders, effect: "deny", matched: 1, reason: /^denied by rule 1 \(deny overrides\)$/ },
  { name: "most specific wins over a less specific review", rules: r("agent", "apply", "require_review", '{ layer = "gold" }') + r("agent", "apply", "allow", '{ layer = "gold", contracted = true }'), capability: "apply", model: orders, effect: "allow", matched: 1, reason: /^allow by rule 1 \(most-specific match\)$/ },
  { name: "any is the least specific", rules: r("agent", "apply", "require_review", "{ any = true }") + r("agent", "apply", "allow", '{ models = ["fct_*"] }'), capability: "apply", model: orders, effect: "allow", matched: 1, reason: /most-specific match/ },
  { name: "incomparable rules: most restrictive wins", rules: r("agent", "apply", "allow", '{ layer = "gold" }') + r("agent", "apply", "require_review", "{ contracted = true }"), capability: "apply", model: orders, effect: "require_review", matched: 1, reason: /^require_review by rule 1 \(most-restrictive of 2 incomparable rules\)$/ },
  { name: "equally specific, same effect: earliest", rules: r("agent", "apply", "allow", '{ layer = "gold" }') + r("agent", "apply", "allow", "{ contracted = true }"), capability: "apply", model: orders, effect: "allow", matched: 0, reason: /^allow by rule 0 \(earliest of 2 equally-specific rules\)$/ },
  { name: "bare apply covers schema_change.additive", rules: r("agent", "apply", "allow", "{ any = true }"), capability: "schema_change.additive", model: orders, effect: "allow", matched: 0, reason: /allow by rule 0/ },
  { name: "bare promote covers value_change", rules: r("agent", "promote", "allow", "{ any = true }"), capability: "value_change", model: orders, effect: "allow", matched: 0, reason: /allow by rule 0/ },
  { name: "bare apply covers schema_change.breaking", rules: r("agent", "apply", "deny", "{ any = true }"), capability: "schema_change.breaking", model: orders, effect: "deny", matched: 0, reason: /denied by rule 0/ },
  { name: "a refinement rule matches only that refinement", rules: r("agent", "schema_change.additive", "allow", "{ any = true }"), capability: "schema_change.breaking", model: orders, effect: "require_review", matched: null, reason: /no rule matched/ },
  { name: "a refinement rule does not match bare apply", rules: r("agent", "schema_change.additive", "allow", "{ any = true }"), capability: "apply", model: orders, effect: "require_review", matched: null, reason: /no rule matched/ },
  { name: "the refinement is more specific than bare apply", rules: r("agent", "apply", "require_review", "{ any = true }") + r("agent", "schema_change.additive", "allow", "{ any = true }"), capability: "schema_change.additive", model: orders, effect: "allow", matched: 1, reason: /most-specific match/ },
  { name: "bare apply does not cover gc", rules: r("agent", "apply", "allow", "{ any = true }"), capability: "gc", model: orders, effect: "require_review", matched: null, reason: /no rule matched/ },
  { name: "models glob with ?", rules: r("agent", "apply", "allow", '{ models = ["stg_user?"] }'), capability: "apply", model: small, effect: "allow", matched: 0, reason: /allow by rule 0/ },
  { name: "models glob must fully match", rules: r("agent", "apply", "allow", '{ models = ["stg"] }'), capability: "apply", model: small, effect: "require_review", matched: null, reason: /no rule matched/ },
  { name: "tags need exact values", rules: r("agent", "apply", "allow", '{ tags = { team = "edge" } }'), capability: "apply", model: orders, effect: "require_review", matched: null, reason: /no rule matched/ },
  { name: "classifications: any listed tag", rules: r("agent", "apply", "allow", '{ classifications = ["phi", "pii"] }'), capability: "apply", model: orders, effect: "allow", matched: 0, reason: /allow/ },
  { name: "exclude_classifications misses a PII model", rules: r("agent", "apply", "allow", '{ exclude_classifications = ["pii"] }'), capability: "apply", model: orders, effect: "require_review", matched: null, reason: /no rule matched/ },
  { name: "contracted = false is a real predicate", rules: r("agent", "apply", "allow", "{ contracted = false }"), capability: "apply", model: orders, effect: "require_review", matched: null, reason: /no rule matched/ },
  { name: "layer comes from tags.layer", rules: r("agent", "apply", "allow", '{ layer = "bronze" }'), capability: "apply", model: small, effect: "allow", matched: 0, reason: /allow/ },
  { name: "ceiling: reachable equal to N stays allow", rules: r("agent", "apply", "allow", '{ layer = "bronze", max_downstreams = 10 }'), capability: "apply", model: small, effect: "allow", matched: 0, reason: /^allow by rule 0 \(most-specific match\)$/ },
  { name: "ceiling: reachable over N degrades", rules: r("agent", "apply", "allow", '{ layer = "bronze", max_downstreams = 10 }'), capability: "apply", model: big, effect: "require_review", matched: 0, reason: /^require_review by rule 0 \(most-specific match\); max_downstreams=10 exceeded \(blast radius 11\) — allow degraded to require_review$/ },
  { name: "ceiling: uncountable degrades", rules: r("agent", "apply", "allow", '{ layer = "bronze", max_downstreams = 10 }'), capability: "apply", model: events, effect: "require_review", matched: 0, reason: /max_downstreams=10 unverifiable \(blast radius uncomputable\) — allow degraded/ },
  { name: "ceiling leaves deny rules alone", rules: r("agent", "apply", "deny", '{ layer = "bronze", max_downstreams = 10 }'), capability: "apply", model: big, effect: "deny", matched: 0, reason: /^denied by rule 0 \(deny overrides\)$/ },
  { name: "max_downstreams never makes a rule miss", rules: r("agent", "apply", "allow", "{ max_downstreams = 0 }"), capability: "apply", model: big, effect: "require_review", matched: 0, reason: /degraded/ },
  { name: "degraded candidate loses to an incomparable allow on restrictiveness", rules: r("agent", "apply", "allow", '{ layer = "bronze", max_downstreams = 1 }') + r("agent", "apply", "allow", '{ models = ["stg_*"] }'), capability: "apply", model: big, effect: "require_review", matched: 0, reason: /most-restrictive of 2 incomparable rules\); max_downstreams=1 exceeded/ },
  { name: "sticky cap: a dominated candidate's breached ceiling caps the allow", rules: r("agent", "apply", "allow", "{ max_downstreams = 5 }") + r("agent", "apply", "allow", '{ layer = "bronze", models = ["stg_*"] }'), capability: "apply", model: big, effect: "require_review", matched: 1, reason: /^allow by rule 1 \(most-specific match\); sticky safety cap: rule 0 max_downstreams=5 exceeded \(blast radius 11\) — allow capped to require_review$/ },
  { name: "sticky cap on an uncountable blast radius", rules: r("agent", "apply", "allow", "{ max_downstreams = 5 }") + r("agent", "apply", "allow", '{ layer = "bronze" }'), capability: "apply", model: events, effect: "require_review", matched: 1, reason: /sticky safety cap: rule 0 max_downstreams=5 unverifiable/ },
  { name: "no sticky cap when the dominated ceiling holds", rules: r("agent", "apply", "allow", "{ max_downstreams = 50 }") + r("agent", "apply", "allow", '{ layer = "bronze" }'), capability: "apply", model: big, effect: "allow", matched: 1, reason: /^allow by rule 1 \(most-specific match\)$/ }
]

// Every case runs through the plain scan and through the bitset index (small buckets normally skip it).
const EVALUATORS = [
  ["plain", Infinity],
  ["index", 1]
] as const

describe("static evaluator", () => {
  for (const c of cases) {
    for (const [evaluator, indexThreshold] of EVALUATORS) {
      it(`${c.name} (${evaluator})`, () => {
        const policy = loadPolicy(`[policy]\nversion = 1\n${c.defaultAgent === undefined ? "" : `default_agent_effect = "${c.defaultAgent}"\n`}${c.rules}`)
        const verdict = evaluate(compilePolicy(policy, { indexThreshold }), c.principal ?? "agent", c.capability, toSubject(c.model))
        expect(verdict.effect).toBe(c.effect)
        expect(verdict.matched_rule).toBe(c.matched)
        expect(verdict.reason).toMatch(c.reason)
      })
    }
  }

  it("with no [policy] block it evaluates the default posture", () => {
    const compiled = compilePolicy(undefined)
    expect(compiled.configured).toBe(false)
    expect(evaluate(compiled, "agent", "apply", toSubject(orders)).effect).toBe("require_review")
    expect(evaluate(compiled, "human", "apply", toSubject(orders)).effect).toBe("allow")
  })

  it("the empty model name matches the glob *", () => {
    const policy = loadPolicy(`[policy]\nversion = 1\n${r("agent", "apply", "allow", '{ models = ["*"] }')}`)
    expect(evaluate(compilePolicy(policy), "agent", "apply", toSubject(model({ name: "" }))).effect).toBe("allow")
  })
})
