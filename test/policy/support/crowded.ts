import fc from "fast-check"
import type { PolicyBlock, PolicyRule, ScopeTable } from "../../../src/schemas/policy"
import { type EvaluationSubject, toSubject } from "../../../src/services/PolicyEngine/attributes"
import { effect } from "./arbitraries"

/** Generators for crowded rule buckets (the index path) shared by the evaluator property tests. */

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

export const crowdedPolicy: fc.Arbitrary<PolicyBlock> = fc
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

export const crowdedAttrs = fc.record({
  name: fc.constantFrom(...NAMES),
  tags: fc.dictionary(fc.constantFrom(...TAG_KEYS), fc.constantFrom(...TAG_VALUES)),
  classifications: fc.array(fc.constantFrom(...CLASSES), { maxLength: 3 }),
  contracted: fc.boolean(),
  layer: fc.option(fc.constantFrom("bronze", "silver", "gold"), { nil: undefined }),
  // Blast radii around the ceilings, so some breach and the sticky cap (a breached dominated allow) shows up.
  reachableDownstreams: fc.option(fc.nat({ max: 6 }), { nil: undefined, freq: 12 })
})

// Deterministic PRNG for the very large buckets below.
export const rng = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

/** One agent/apply bucket of `size` rules with high-cardinality keys (sparse pass sets); few, narrow denies so most evaluations reach specificity. */
export const bigBucket = (seed: number, size = 1200): PolicyBlock => {
  const r = rng(seed)
  const pick = <A>(xs: ReadonlyArray<A>): A => xs[Math.floor(r() * xs.length)]!
  const rules = Array.from({ length: size }, (_, i): PolicyRule => {
    const scope: Record<string, unknown> = {}
    if (r() < 0.5) scope["layer"] = `l${i % 900}`
    if (r() < 0.5) scope["tags"] = r() < 0.5 ? { team: `t${i % 1100}` } : { [`key${i}`]: "v" }
    if (r() < 0.4) scope["classifications"] = [`c${i % 1000}`]
    if (r() < 0.3) scope["models"] = [pick(["m_*", `m_${i % 50}*`, `*_${i % 40}`, `m_${i % 30}`, `*_${i % 20}*`, `?_${i % 10}?*`])]
    if (r() < 0.3) scope["max_downstreams"] = Math.floor(r() * 20)
    if (Object.keys(scope).length === 0) scope["any"] = true
    const effect = pick(["allow", "require_review", "allow", "deny"] as const)
    // Denies only on narrow scopes: an unconstrained deny would decide every evaluation.
    const narrow = scope["layer"] !== undefined || scope["tags"] !== undefined || scope["classifications"] !== undefined
    return { principal: "agent", capability: "apply", effect: effect === "deny" && (i % 3 !== 0 || !narrow) ? "allow" : effect, scope, verify_after: [] } as PolicyRule
  })
  return { version: 1, default_agent_effect: "require_review", rules, freeze_marker_writes: false, tests: [] }
}

/** Subjects for `bigBucket`. */
export const bigSubjects = (seed: number, count: number): Array<EvaluationSubject> => {
  const r = rng(seed)
  return Array.from({ length: count }, () => {
    const tags: Record<string, string> = { team: `t${Math.floor(r() * 1100)}` }
    if (r() < 0.3) tags[`key${Math.floor(r() * 1200)}`] = "v"
    return toSubject({
      name: `m_${Math.floor(r() * 60)}`,
      tags,
      classifications: Array.from({ length: Math.floor(r() * 3) }, () => `c${Math.floor(r() * 1000)}`),
      contracted: r() < 0.5,
      layer: `l${Math.floor(r() * 900)}`,
      reachableDownstreams: r() < 0.2 ? undefined : Math.floor(r() * 25)
    })
  })
}
