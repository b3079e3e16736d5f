import fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { Capability, PolicyBlock, PolicyEffect, PolicyRule, Principal, ScopeTable } from "../../src/schemas/policy"
import { type EvaluationSubject, toSubject } from "../../src/services/PolicyEngine/attributes"
import { compilePolicy, evaluate } from "../../src/services/PolicyEngine/evaluate"
import { globToRegExp } from "../../src/services/PolicyEngine/glob"
import { attrs, capability, effect, policy, principal } from "./support/arbitraries"

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

/** The parts of the reason the evaluator derives from the candidate set (survivor count, tie kind, sticky cap). */
const naiveReasonParts = (block: PolicyBlock, who: Principal, cap: Capability, s: EvaluationSubject): Array<string> => {
  const [effect, id] = naive(block, who, cap, s)
  if (id === null || effect === "deny") return []
  const candidates = block.rules.flatMap((r, i) => {
    if (r.principal !== who) return []
    const one: PolicyBlock = { ...block, rules: [r] }
    return naive(one, who, cap, s)[1] === null ? [] : [{ r, i, keys: keysOf(r) }]
  })
  const strict = (a: Array<string>, b: Array<string>) => a.length < b.length && a.every((k) => b.includes(k))
  const survivors = candidates.filter((c) => !candidates.some((o) => strict(c.keys, o.keys)))
  const breached = (r: PolicyRule) =>
    r.effect === "allow" && r.scope!.max_downstreams !== undefined && (s.reachableDownstreams === undefined || s.reachableDownstreams > r.scope!.max_downstreams)
  const ranks = new Set(survivors.map((c) => (breached(c.r) ? 1 : RANK[c.r.effect])))
  const how =
    survivors.length === 1
      ? "most-specific match"
      : ranks.size > 1
        ? `most-restrictive of ${survivors.length} incomparable rules`
        : `earliest of ${survivors.length} equally-specific rules`
  const capped = candidates.find((c) => breached(c.r))
  const winnerBreached = breached(block.rules[id]!)
  return [`(${how})`, ...(capped !== undefined && !winnerBreached && survivors.every((c) => !breached(c.r) && c.r.effect === "allow") ? [`sticky safety cap: rule ${capped.i} `] : [])]
}

const keysOf = (r: PolicyRule): Array<string> => {
  const sc = r.scope!
  return [
    ...((sc.models ?? []).length > 0 ? ["models"] : []),
    ...(Object.keys(sc.tags ?? {}).length > 0 ? ["tags"] : []),
    ...((sc.classifications ?? []).length > 0 ? ["classifications"] : []),
    ...((sc.exclude_classifications ?? []).length > 0 ? ["exclude"] : []),
    ...(sc.contracted !== undefined ? ["contracted"] : []),
    ...(sc.layer !== undefined ? ["layer"] : []),
    ...(REFINED.includes(r.capability) ? ["refinement"] : [])
  ]
}

// Crowded buckets: many rules over few principal/capability pairs (multi-word bitsets, every
// constraint-set group), globs sharing prefixes and suffixes, frequent and rare tag keys.
const GLOBS = ["*s", "*_or*", "*rd?r*", "?tg_*", "*g_o*s*", "stg_*", "stg_o*", "stg_orders", "stg_?rders", "*_orders", "*orders", "s*s", "*", "**", "st*_*", "*_ord?rs", "fct_*", "f*", "", "?", "*s*", "stg_**"]
const NAMES = ["stg_orders", "stg_ordrs", "stg_", "stg_o", "fct_orders", "s", "ss", "orders", "", "x_orders", "stg_orders_v2"]
const TAG_KEYS = ["team", "team", "team", "layer", "owner", "k1", "k2"]
const TAG_VALUES = ["core", "gold", "edge", "bronze"]
const CLASSES = ["pii", "phi", "internal", "public"]

// Loose scopes (one key, often a ceiling): many candidates per evaluation.
const looseScope = fc
  .record(
    {
      models: fc.array(fc.constantFrom("*", "stg_*", "*s", "*_orders", "*_or*", "*rd?r*", "?tg_*"), { minLength: 1, maxLength: 1 }),
      contracted: fc.boolean(),
      max_downstreams: fc.nat({ max: 6 })
    },
    { requiredKeys: [] }
  )
  .filter((s) => Object.keys(s).length > 0)

const crowdedScope = fc.oneof(
  { weight: 1, arbitrary: fc.constant({ any: true as const }) },
  { weight: 4, arbitrary: looseScope },
  {
    weight: 6,
    arbitrary: fc
      .record(
        {
          models: fc.array(fc.constantFrom(...GLOBS), { minLength: 1, maxLength: 3 }),
          tags: fc.dictionary(fc.constantFrom(...TAG_KEYS), fc.constantFrom(...TAG_VALUES), { minKeys: 1, maxKeys: 3 }),
          classifications: fc.array(fc.constantFrom(...CLASSES), { minLength: 1, maxLength: 2 }),
          exclude_classifications: fc.array(fc.constantFrom(...CLASSES), { minLength: 1, maxLength: 2 }),
          contracted: fc.boolean(),
          layer: fc.constantFrom("bronze", "silver", "gold"),
          max_downstreams: fc.nat({ max: 6 })
        },
        { requiredKeys: [] }
      )
      .filter((s) => Object.keys(s).length > 0)
  }
)

/** Effect weights [deny, review, allow] vary per policy so sticky caps (all-allow survivors) occur. */
const crowdedRule = ([deny, review, allow]: readonly [number, number, number], scope: fc.Arbitrary<ScopeTable> = crowdedScope): fc.Arbitrary<PolicyRule> =>
  fc.record({
    principal: fc.constantFrom("agent" as const, "agent" as const, "human" as const),
    capability: fc.constantFrom("apply" as const, "schema_change.additive" as const, "promote" as const),
    effect: fc.oneof(
      { weight: deny, arbitrary: fc.constant("deny" as const) },
      { weight: review, arbitrary: fc.constant("require_review" as const) },
      { weight: allow, arbitrary: fc.constant("allow" as const) }
    ),
    scope,
    verify_after: fc.constant([])
  })

const crowdedPolicy: fc.Arbitrary<PolicyBlock> = fc
  .constantFrom([1, 4, 4] as const, [0, 0, 1] as const, [0, 1, 20] as const, [1, 0, 30] as const)
  .chain((weights) =>
    fc.record({
      version: fc.constant(1),
      default_agent_effect: effect,
      // Loose-only policies give many candidates (word-wide selection) with sticky caps.
      rules: fc.oneof(
        fc.array(crowdedRule(weights), { minLength: 20, maxLength: 160 }),
        fc.array(crowdedRule(weights, looseScope), { minLength: 30, maxLength: 120 })
      ),
      freeze_marker_writes: fc.constant(false),
      tests: fc.constant([])
    })
  )

const crowdedAttrs = fc.record({
  name: fc.constantFrom(...NAMES),
  tags: fc.dictionary(fc.constantFrom(...TAG_KEYS), fc.constantFrom(...TAG_VALUES)),
  classifications: fc.array(fc.constantFrom(...CLASSES), { maxLength: 3 }),
  contracted: fc.boolean(),
  layer: fc.option(fc.constantFrom("bronze", "silver", "gold"), { nil: undefined }),
  // Blast radii around the ceilings, so some breach and the sticky cap (a breached dominated allow) shows up.
  reachableDownstreams: fc.option(fc.nat({ max: 6 }), { nil: undefined, freq: 12 })
})

// Deterministic PRNG for the very large buckets below.
const rng = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
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

  it("agrees on crowded buckets (shared glob prefixes/suffixes, many constraint sets, multi-word sets)", () => {
    fc.assert(
      fc.property(crowdedPolicy, fc.array(fc.tuple(principal, capability, crowdedAttrs), { minLength: 1, maxLength: 20 }), (block, requests) => {
        const compiled = compilePolicy(block)
        for (const [who, cap, model] of requests) {
          const s = toSubject(model)
          const verdict = evaluate(compiled, who, cap, s)
          expect([verdict.effect, verdict.matched_rule]).toEqual(naive(block, who, cap, s))
          for (const part of naiveReasonParts(block, who, cap, s)) expect(verdict.reason).toContain(part)
        }
      }),
      { numRuns: 600 }
    )
  })

  it("agrees on a 1,200-rule bucket with high-cardinality keys (sparse pass sets)", () => {
    const r = rng(42)
    const pick = <A>(xs: ReadonlyArray<A>): A => xs[Math.floor(r() * xs.length)]!
    const rules = Array.from({ length: 1200 }, (_, i): PolicyRule => {
      const scope: Record<string, unknown> = {}
      if (r() < 0.5) scope["layer"] = `l${i % 900}`
      if (r() < 0.5) scope["tags"] = r() < 0.5 ? { team: `t${i % 1100}` } : { [`key${i}`]: "v" }
      if (r() < 0.4) scope["classifications"] = [`c${i % 1000}`]
      if (r() < 0.3) scope["models"] = [pick(["m_*", `m_${i % 50}*`, `*_${i % 40}`, `m_${i % 30}`, `*_${i % 20}*`, `?_${i % 10}?*`])]
      if (r() < 0.3) scope["max_downstreams"] = Math.floor(r() * 20)
      if (Object.keys(scope).length === 0) scope["any"] = true
      return { principal: "agent", capability: "apply", effect: pick(["allow", "require_review", "allow", "deny"] as const), scope, verify_after: [] } as PolicyRule
    })
    // Rare denies only, so most evaluations reach specificity.
    const block: PolicyBlock = { version: 1, default_agent_effect: "require_review", rules: rules.map((x, i) => (x.effect === "deny" && i % 7 !== 0 ? { ...x, effect: "allow" } : x)), freeze_marker_writes: false, tests: [] }
    const compiled = compilePolicy(block)
    for (let k = 0; k < 400; k++) {
      const tags: Record<string, string> = { team: `t${Math.floor(r() * 1100)}` }
      if (r() < 0.3) tags[`key${Math.floor(r() * 1200)}`] = "v"
      const s = toSubject({
        name: `m_${Math.floor(r() * 60)}`,
        tags,
        classifications: Array.from({ length: Math.floor(r() * 3) }, () => `c${Math.floor(r() * 1000)}`),
        contracted: r() < 0.5,
        layer: `l${Math.floor(r() * 900)}`,
        reachableDownstreams: r() < 0.2 ? undefined : Math.floor(r() * 25)
      })
      const verdict = evaluate(compiled, "agent", "apply", s)
      expect([verdict.effect, verdict.matched_rule]).toEqual(naive(block, "agent", "apply", s))
      for (const part of naiveReasonParts(block, "agent", "apply", s)) expect(verdict.reason).toContain(part)
    }
  })
})
