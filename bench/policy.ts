/**
 * Policy evaluation throughput: 1,000 rules × 10,000 models, against a trivial baseline
 * loop measured in the same run. Bundle and run:
 *   npx esbuild bench/policy.ts --bundle --platform=node --format=esm --packages=external --outfile=dist/bench/policy.mjs && node dist/bench/policy.mjs
 */
import { performance } from "node:perf_hooks"
import type { Capability, PolicyBlock, PolicyRule, Principal } from "../src/schemas/policy"
import { toSubject, type EvaluationSubject } from "../src/services/PolicyEngine/attributes"
import { compilePolicy, evaluate } from "../src/services/PolicyEngine/evaluate"

const RULES = 1_000
const MODELS = 10_000
const TARGET = 100_000

// Deterministic PRNG (mulberry32) so every run measures the same workload.
const rng = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}
const pick = <A>(r: () => number, xs: ReadonlyArray<A>): A => xs[Math.floor(r() * xs.length)]!

const LAYERS = ["bronze", "silver", "gold"]
const TEAMS = ["core", "edge", "growth", "finance"]
const CLASSES = ["pii", "phi", "internal", "public"]
const MUTATING: ReadonlyArray<Capability> = ["apply", "promote", "schema_change.additive", "schema_change.breaking", "value_change", "propose", "backfill", "gc"]
const EFFECTS = ["allow", "require_review", "deny"] as const

const makeRules = (seed: number, oneBucket: boolean): Array<PolicyRule> => {
  const r = rng(seed)
  return Array.from({ length: RULES }, (_, i): PolicyRule => {
    const scope: Record<string, unknown> = {}
    if (r() < 0.4) scope["models"] = [`${pick(r, ["stg", "fct", "dim", "int"])}_${i % 97}*`]
    if (r() < 0.3) scope["tags"] = { team: pick(r, TEAMS) }
    if (r() < 0.3) scope["layer"] = pick(r, LAYERS)
    if (r() < 0.2) scope["classifications"] = [pick(r, CLASSES)]
    if (r() < 0.2) scope["exclude_classifications"] = [pick(r, CLASSES)]
    if (r() < 0.2) scope["contracted"] = r() < 0.5
    if (r() < 0.3) scope["max_downstreams"] = Math.floor(r() * 50)
    if (Object.keys(scope).length === 0) scope["any"] = true
    const effect = !oneBucket && r() < 0.03 ? "deny" : pick(r, EFFECTS.slice(0, 2))
    return {
      principal: oneBucket ? "agent" : pick(r, ["agent", "human"] as const),
      capability: oneBucket ? "apply" : pick(r, MUTATING),
      effect,
      scope,
      verify_after: []
    } as PolicyRule
  })
}

const makeModels = (seed: number): Array<EvaluationSubject> => {
  const r = rng(seed)
  return Array.from({ length: MODELS }, (_, i) =>
    toSubject({
      name: `${pick(r, ["stg", "fct", "dim", "int"])}_${i % 97}_${i}`,
      tags: { layer: pick(r, LAYERS), team: pick(r, TEAMS) },
      classifications: r() < 0.3 ? [pick(r, CLASSES)] : [],
      contracted: r() < 0.2,
      reachableDownstreams: r() < 0.1 ? undefined : Math.floor(r() * 80)
    })
  )
}

const block = (rules: Array<PolicyRule>): PolicyBlock => ({ version: 1, default_agent_effect: "require_review", rules, freeze_marker_writes: false, tests: [] })

interface Row {
  readonly name: string
  readonly evals: number
  readonly ms: number
}

const measure = (name: string, passes: number, body: () => number): Row => {
  body() // warm-up
  let sink = 0
  const start = performance.now()
  for (let p = 0; p < passes; p++) sink += body()
  const ms = performance.now() - start
  if (sink === -1) console.log("unreachable")
  return { name, evals: passes * MODELS, ms }
}

const models = makeModels(7)
const requests: ReadonlyArray<readonly [Principal, Capability]> = [
  ["agent", "schema_change.additive"],
  ["agent", "apply"],
  ["human", "promote"],
  ["agent", "gc"]
]

// Baseline: the same loop shape with a trivial decision per model (no rules).
const baseline = measure("baseline loop (trivial decision)", 40, () => {
  let n = 0
  for (let i = 0; i < models.length; i++) {
    const m = models[i]!
    const [principal] = requests[i % requests.length]!
    n += principal === "agent" && m.contracted ? 2 : m.layer === "gold" ? 1 : 0
  }
  return n
})

const runPolicy = (name: string, rules: Array<PolicyRule>, passes: number): Row => {
  const compiled = compilePolicy(block(rules))
  return measure(name, passes, () => {
    let n = 0
    for (let i = 0; i < models.length; i++) {
      const [principal, capability] = requests[i % requests.length]!
      n += evaluate(compiled, principal, capability, models[i]!).effect.length
    }
    return n
  })
}

const compileStart = performance.now()
compilePolicy(block(makeRules(11, false)))
const compileMs = performance.now() - compileStart

const rows: Array<Row> = [
  baseline,
  runPolicy("evaluate: 1,000 rules spread over principals × capabilities", makeRules(11, false), 10),
  runPolicy("evaluate: 1,000 rules all agent/apply, no deny (worst case)", makeRules(13, true), 3)
]

const rate = (row: Row) => (row.evals / row.ms) * 1000
const fmt = (n: number) => Math.round(n).toLocaleString("en-US")
console.log(`policy evaluation: ${RULES} rules × ${MODELS} models (compile ${compileMs.toFixed(1)} ms; target ≥ ${fmt(TARGET)} evals/s)`)
console.log("")
console.log(`| ${"case".padEnd(62)} | ${"evals".padStart(8)} | ${"ms".padStart(9)} | ${"evals/s".padStart(12)} | ${"vs baseline".padStart(11)} | target |`)
console.log(`|${"-".repeat(64)}|${"-".repeat(10)}|${"-".repeat(11)}|${"-".repeat(14)}|${"-".repeat(13)}|--------|`)
for (const row of rows) {
  const ratio = rate(row) / rate(baseline)
  const met = row === baseline ? "  -   " : rate(row) >= TARGET ? "  ok  " : " MISS "
  console.log(
    `| ${row.name.padEnd(62)} | ${fmt(row.evals).padStart(8)} | ${row.ms.toFixed(1).padStart(9)} | ${fmt(rate(row)).padStart(12)} | ${(ratio >= 0.01 ? ratio.toFixed(3) : ratio.toExponential(2)).padStart(10)}× | ${met} |`
  )
}
