/**
 * Policy evaluation throughput. `npm run bench -- policy` prints:
 *  1. the plain evaluator (file-order scan) and the bitset index side by side, one bucket of
 *     20 / 100 / 1,000 / 3,000 rules, per rule shape: evaluations/s and index ÷ plain;
 *  2. the same ratio over small buckets, where INDEX_THRESHOLD (evaluate.ts) is chosen;
 *  3. the production evaluator at 1,000 rules × 10,000 models against a trivial baseline loop;
 *  4. `pcli policy test` wall time with 1,000 rules and 1,000 scenarios.
 */
import { spawnSync } from "node:child_process"
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { performance } from "node:perf_hooks"
import type { Capability, PolicyBlock, PolicyRule, Principal } from "../src/schemas/policy"
import { toSubject, type EvaluationSubject } from "../src/services/PolicyEngine/attributes"
import { type CompiledPolicy, compilePolicy, evaluate, INDEX_THRESHOLD } from "../src/services/PolicyEngine/evaluate"
import { median, printTable, timeProcess } from "./support"

const RULES = 1_000
const MODELS = 10_000
const TARGET = 100_000
const SCENARIOS = 1_000
const POLICY_TEST_TARGET_MS = 1_500
const PROCESS_RUNS = 5

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

const makeRules = (seed: number, oneBucket: boolean, n = RULES): Array<PolicyRule> => {
  const r = rng(seed)
  return Array.from({ length: n }, (_, i): PolicyRule => {
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

/** Rules that all share one glob prefix family (many `stg_*`-like globs with shared prefixes). */
const makePrefixRules = (seed: number, n = RULES): Array<PolicyRule> => {
  const r = rng(seed)
  return Array.from({ length: n }, (_, i): PolicyRule => {
    const scope: Record<string, unknown> = { models: [`${pick(r, ["stg", "fct", "dim", "int"])}_${i % 97}${r() < 0.5 ? "*" : "_*"}`] }
    if (r() < 0.3) scope["max_downstreams"] = Math.floor(r() * 50)
    return { principal: "agent", capability: "apply", effect: pick(r, EFFECTS.slice(0, 2)), scope, verify_after: [] } as PolicyRule
  })
}

/** Globs anchored only at the end (`*_12_34`), some infix (`*_1*`): one bucket. */
const makeSuffixRules = (seed: number, n = RULES): Array<PolicyRule> => {
  const r = rng(seed)
  return Array.from({ length: n }, (_, i): PolicyRule => {
    const glob = r() < 0.9 ? `*_${i % 97}_${Math.floor(r() * 10_000)}` : `*_${i % 97}*`
    const scope: Record<string, unknown> = { models: [glob] }
    if (r() < 0.3) scope["max_downstreams"] = Math.floor(r() * 50)
    return { principal: "agent", capability: "apply", effect: pick(r, EFFECTS.slice(0, 2)), scope, verify_after: [] } as PolicyRule
  })
}

/** Rules that all match every model: `any` / ceilings only, the candidate set is the whole bucket. */
const makeAnyRules = (seed: number, n = RULES): Array<PolicyRule> => {
  const r = rng(seed)
  return Array.from({ length: n }, (): PolicyRule => {
    const scope: Record<string, unknown> = r() < 0.3 ? { max_downstreams: Math.floor(r() * 50) } : { any: true }
    return { principal: "agent", capability: "apply", effect: pick(r, EFFECTS.slice(0, 2)), scope, verify_after: [] } as PolicyRule
  })
}

/** One bucket, tag/classification/contracted predicates only (no glob, no layer index). */
const makeAttributeRules = (seed: number, n = RULES): Array<PolicyRule> => {
  const r = rng(seed)
  return Array.from({ length: n }, (): PolicyRule => {
    const scope: Record<string, unknown> = {}
    if (r() < 0.5) scope["tags"] = r() < 0.5 ? { team: pick(r, TEAMS) } : { team: pick(r, TEAMS), layer: pick(r, LAYERS) }
    if (r() < 0.4) scope["classifications"] = [pick(r, CLASSES), pick(r, CLASSES)]
    if (r() < 0.4) scope["exclude_classifications"] = [pick(r, CLASSES)]
    if (r() < 0.4) scope["contracted"] = r() < 0.5
    if (r() < 0.3) scope["max_downstreams"] = Math.floor(r() * 50)
    if (Object.keys(scope).length === 0) scope["any"] = true
    return { principal: "agent", capability: "apply", effect: pick(r, EFFECTS.slice(0, 2)), scope, verify_after: [] } as PolicyRule
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

// ---- 1 and 2: plain scan vs bitset index, one agent/apply bucket of n rules ----

const SHAPES: ReadonlyArray<readonly [string, (seed: number, n: number) => Array<PolicyRule>]> = [
  ["mixed keys", (seed, n) => makeRules(seed, true, n)],
  ["prefix globs", makePrefixRules],
  ["suffix/infix globs", makeSuffixRules],
  ["tags/classes", makeAttributeRules],
  ["all match", makeAnyRules]
]
const ROUNDS = 5
const ROUND_MS = 40

/** Evaluations per second of one round: cycles through the models until ROUND_MS have passed. */
const round = (compiled: CompiledPolicy): number => {
  let n = 0
  let sink = 0
  const start = performance.now()
  let elapsed = 0
  while (elapsed < ROUND_MS) {
    for (let k = 0; k < 64; k++, n++) sink += evaluate(compiled, "agent", "apply", models[n % models.length]!).effect.length
    elapsed = performance.now() - start
  }
  if (sink === -1) console.log("unreachable")
  return (n / elapsed) * 1000
}

/** Best-of-ROUNDS rates of the plain evaluator and the index on the same rules, rounds interleaved (a shared machine drifts). */
const sideBySide = (rules: Array<PolicyRule>): { readonly plain: number; readonly index: number } => {
  const plain = compilePolicy(block(rules), { indexThreshold: Infinity })
  const index = compilePolicy(block(rules), { indexThreshold: 1 })
  // The bench only means something if both answer the same (the property tests prove it; this checks the workload).
  for (const m of models.slice(0, 500)) {
    const a = evaluate(plain, "agent", "apply", m)
    const b = evaluate(index, "agent", "apply", m)
    if (a.effect !== b.effect || a.matched_rule !== b.matched_rule || a.reason !== b.reason) throw new Error(`plain and index disagree on ${m.name}`)
  }
  round(plain)
  round(index)
  let best = { plain: 0, index: 0 }
  for (let k = 0; k < ROUNDS; k++) best = { plain: Math.max(best.plain, round(plain)), index: Math.max(best.index, round(index)) }
  return best
}

const geomean = (xs: ReadonlyArray<number>) => Math.exp(xs.reduce((a, x) => a + Math.log(x), 0) / xs.length)
const fmtRate = (n: number) => Math.round(n).toLocaleString("en-US")

console.log(`plain evaluator vs bitset index: one agent/apply bucket × ${MODELS.toLocaleString("en-US")} models (best of ${ROUNDS} interleaved ${ROUND_MS} ms rounds)`)
console.log("")
const sideRows: Array<Array<string>> = []
for (const n of [20, 100, 1_000, 3_000]) {
  const ratios: Array<number> = []
  SHAPES.forEach(([shape, make], s) => {
    const { plain, index } = sideBySide(make(101 + s, n))
    ratios.push(index / plain)
    sideRows.push([n.toLocaleString("en-US"), shape, fmtRate(plain), fmtRate(index), `${(index / plain).toFixed(2)}×`, n >= INDEX_THRESHOLD ? "index" : "plain"])
  })
  sideRows.push([n.toLocaleString("en-US"), "(geometric mean)", "", "", `${geomean(ratios).toFixed(2)}×`, ""])
}
printTable(["rules", "shape", "plain evals/s", "index evals/s", "index ÷ plain", "default uses"], sideRows)

console.log("")
console.log(`index ÷ plain on small buckets (INDEX_THRESHOLD = ${INDEX_THRESHOLD}: buckets with at least that many rules use the index)`)
console.log("")
const sweepRows: Array<Array<string>> = []
for (const n of [4, 8, 12, 16, 24, 32, 48, 64]) {
  const ratios = SHAPES.map(([, make], s) => {
    const { plain, index } = sideBySide(make(201 + s, n))
    return index / plain
  })
  sweepRows.push([String(n), ...ratios.map((x) => `${x.toFixed(2)}×`), `${geomean(ratios).toFixed(2)}×`])
}
printTable(["rules", ...SHAPES.map(([shape]) => shape), "geometric mean"], sweepRows)
console.log("")

// ---- 3: the production evaluator (default threshold) at 1,000 rules ----

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

const runPolicy = (name: string, rules: Array<PolicyRule>, passes: number, only?: readonly [Principal, Capability]): Row => {
  const compiled = compilePolicy(block(rules))
  return measure(name, passes, () => {
    let n = 0
    for (let i = 0; i < models.length; i++) {
      const [principal, capability] = only ?? requests[i % requests.length]!
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
  runPolicy("evaluate: 1,000 rules all agent/apply, no deny (worst case)", makeRules(13, true), 3),
  runPolicy("evaluate: 1,000 rules one bucket, agent/apply requests only", makeRules(13, true), 3, ["agent", "apply"]),
  runPolicy("evaluate: 1,000 glob rules, shared prefixes, one bucket", makePrefixRules(17), 3, ["agent", "apply"]),
  runPolicy("evaluate: 1,000 suffix (90%) / infix (10%) glob rules, one bucket", makeSuffixRules(29), 3, ["agent", "apply"]),
  runPolicy("evaluate: 1,000 tag/classification/contracted rules, one bucket", makeAttributeRules(19), 3, ["agent", "apply"]),
  runPolicy("evaluate: 1,000 rules that all match (any/ceilings)", makeAnyRules(23), 3, ["agent", "apply"])
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

// ---- 4: `pcli policy test` wall time: 1,000 rules and 1,000 scenarios in a temp project, against `node -e 0`.
const tomlString = (s: string) => JSON.stringify(s)
const tomlValue = (v: unknown): string =>
  typeof v === "string"
    ? tomlString(v)
    : Array.isArray(v)
      ? `[${v.map(tomlValue).join(", ")}]`
      : typeof v === "object" && v !== null
        ? `{ ${Object.entries(v).map(([k, x]) => `${k} = ${tomlValue(x)}`).join(", ")} }`
        : String(v)

const policyToml = (rules: ReadonlyArray<PolicyRule>, subjects: ReadonlyArray<EvaluationSubject>): string => {
  const compiled = compilePolicy(block([...rules]))
  const lines = ["[project]", 'name = "policy-bench"', "", "[policy]", "version = 1", 'default_agent_effect = "require_review"', ""]
  for (const rule of rules) {
    lines.push("[[policy.rules]]", `principal = ${tomlString(rule.principal)}`, `capability = ${tomlString(rule.capability)}`, `effect = ${tomlString(rule.effect)}`, `scope = ${tomlValue(rule.scope)}`, "")
  }
  subjects.slice(0, SCENARIOS).forEach((s, i) => {
    const [principal, capability] = requests[i % requests.length]!
    // Expectations come from the evaluator itself so the command exits 0 (every scenario passes).
    const expected = evaluate(compiled, principal, capability, s).effect
    lines.push(
      "[[policy.tests]]",
      `name = "scenario ${i}"`,
      `principal = ${tomlString(principal)}`,
      `capability = ${tomlString(capability)}`,
      `expect = ${tomlString(expected)}`,
      `model = ${tomlString(s.name)}`,
      `tags = ${tomlValue(s.tags)}`,
      `classifications = ${tomlValue([...s.classifications])}`,
      `contracted = ${s.contracted}`,
      ...(s.reachableDownstreams === undefined ? [] : [`reachable_downstreams = ${s.reachableDownstreams}`]),
      ""
    )
  })
  return lines.join("\n")
}

const bin = resolve("dist/pcli.cjs")
console.log("")
if (!existsSync(bin)) {
  console.log(`policy test wall time: skipped (${bin} missing; run \`npm run build\` first)`)
} else {
  const dir = mkdtempSync(join(tmpdir(), "pcli-policy-bench-"))
  try {
    const config = join(dir, "pcli.toml")
    writeFileSync(config, policyToml(makeRules(11, false), models))
    const cases: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
      ["node -e 0 (baseline)", ["-e", "0"]],
      [`pcli policy test (${RULES} rules, ${SCENARIOS} scenarios)`, [bin, "policy", "test", "--config", config, "--output", "json"]]
    ]
    // Warms the OS file cache and checks the run is real: every scenario evaluated and passed.
    const check = spawnSync(process.execPath, cases[1]![1], { cwd: dir, encoding: "utf8" })
    const report = check.status === 0 ? (JSON.parse(check.stdout) as { total?: number; passed?: number }) : {}
    if (report.total !== SCENARIOS || report.passed !== SCENARIOS) throw new Error(`policy test did not pass all scenarios (exit ${check.status}): ${check.stderr.slice(0, 400)}`)
    const samples = cases.map(() => [] as Array<number>)
    for (let i = 0; i < PROCESS_RUNS; i++) cases.forEach(([, args], c) => samples[c]!.push(timeProcess(process.execPath, args, dir)))
    const base = median(samples[0]!)
    console.log(`policy test wall time (median of ${PROCESS_RUNS}; target ≤ ${fmt(POLICY_TEST_TARGET_MS)} ms including startup)`)
    console.log("")
    console.log(`| ${"command".padEnd(62)} | ${"median ms".padStart(10)} | ${"vs baseline".padStart(11)} | target |`)
    console.log(`|${"-".repeat(64)}|${"-".repeat(12)}|${"-".repeat(13)}|--------|`)
    cases.forEach(([name], c) => {
      const m = median(samples[c]!)
      const met = c === 0 ? "  -   " : m <= POLICY_TEST_TARGET_MS ? "  ok  " : " MISS "
      console.log(`| ${name.padEnd(62)} | ${m.toFixed(1).padStart(10)} | ${(m / base).toFixed(2).padStart(10)}× | ${met} |`)
    })
  } finally {
    if (process.env["PCLI_BENCH_KEEP"] === undefined) rmSync(dir, { recursive: true, force: true })
    else console.log(`kept ${dir}`)
  }
}
