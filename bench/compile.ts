/**
 * Compile wall time and peak memory for generated projects of 1,000 and 10,000 models.
 * Build: npx esbuild bench/compile.ts --bundle --platform=node --format=esm --packages=external --outfile=dist/bench/compile.mjs
 */
import { NodeContext } from "@effect/platform-node"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { compileModels } from "../src/services/Pipeline/compile"
import { loadModels } from "../src/services/Pipeline/models"
import { parseReferences } from "../src/services/Pipeline/sqlRefs"

/** A layered project: ~10% roots, each other model reads 1-3 earlier models (joins, CTEs). */
const generate = (dir: string, count: number) => {
  const models = path.join(dir, "models")
  fs.mkdirSync(models, { recursive: true })
  let seed = 42
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648)
  for (let i = 0; i < count; i++) {
    const name = `m${String(i).padStart(5, "0")}`
    let sql: string
    if (i < Math.max(1, Math.floor(count / 10))) {
      sql = `SELECT range AS id, range % 7 AS k, 'v' || range AS label FROM range(100)`
    } else {
      const picks = new Set<number>()
      const n = Math.min(i, 1 + Math.floor(rand() * 3))
      while (picks.size < n) picks.add(Math.floor(rand() * i))
      const [first, ...rest] = [...picks].map((p) => `main.m${String(p).padStart(5, "0")}`)
      const joins = rest.map((t, j) => `JOIN ${t} t${j + 1} USING (id)`).join("\n")
      sql = `WITH base AS (\n  SELECT t0.id, t0.k, t0.label FROM ${first} t0\n  ${joins}\n)\nSELECT id, k, upper(label) AS label, count(*) OVER (PARTITION BY k) AS n\nFROM base\nWHERE id % 3 <> 1`
    }
    fs.writeFileSync(path.join(models, `${name}.sql`), sql)
    fs.writeFileSync(
      path.join(models, `${name}.toml`),
      `name = "${name}"\nintent = "generated"\n\n[target]\ncatalog = "warehouse"\nschema = "main"\ntable = "${name}"\n\n[tags]\nlayer = "l${i % 4}"\n\n[[tests]]\ntype = "not_null"\ncolumn = "id"\n`
    )
  }
  return models
}

const run = <A, E>(effect: Effect.Effect<A, E, NodeContext.NodeContext>) =>
  Effect.runPromise(Effect.provide(effect, NodeContext.layer) as Effect.Effect<A, E>)

const phases = async (modelsDir: string) => {
  const t0 = performance.now()
  const defs = await run(loadModels({ modelsDir, env: {} }))
  const t1 = performance.now()
  await run(parseReferences(defs.map((d) => ({ model: d.name, sql: d.sql }))))
  const t2 = performance.now()
  const project = await run(compileModels(defs))
  const t3 = performance.now()
  console.error(`  [n=${defs.length}] load ${(t1 - t0).toFixed(0)} ms, parse ${(t2 - t1).toFixed(0)} ms, compile ${(t3 - t2).toFixed(0)} ms`)
  return { load: t1 - t0, parse: t2 - t1, compile: t3 - t2, models: project.models.size, layers: project.layers.length }
}

const main = async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "pcli-bench-compile-"))
  const rows: Array<{ n: number; load: number; parse: number; compile: number; layers: number; rss: number }> = []
  try {
    // Warm-up: loads DuckDB's native module once so the baseline measures compile, not dlopen.
    await phases(generate(path.join(root, "warm"), 10))
    for (const n of (process.env["BENCH_SIZES"] ?? "1000,10000").split(",").map(Number)) {
      const dir = generate(path.join(root, `p${n}`), n)
      if (global.gc !== undefined) global.gc()
      const r = await phases(dir)
      rows.push({ n, load: r.load, parse: r.parse, compile: r.compile, layers: r.layers, rss: process.resourceUsage().maxRSS / 1024 })
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true })
  }
  const base = rows[0]!
  console.log("compile (load = read+decode files; parse = DuckDB json_serialize_sql alone; compile = parse + resolve + DAG)")
  console.log("models  | layers | load ms | parse ms | compile ms | load+compile ms | peak RSS MB | time ratio")
  for (const r of rows) {
    const total = r.load + r.compile
    console.log(
      `${String(r.n).padStart(7)} | ${String(r.layers).padStart(6)} | ${r.load.toFixed(0).padStart(7)} | ${r.parse.toFixed(0).padStart(8)} | ${r.compile.toFixed(0).padStart(10)} | ${total.toFixed(0).padStart(15)} | ${r.rss.toFixed(0).padStart(11)} | ${(total / (base.load + base.compile)).toFixed(2)}x`
    )
  }
  const last = rows[rows.length - 1]!
  const total = last.load + last.compile
  const phasesByCost: Array<[string, number]> = [
    ["reading + TOML/Schema decoding of model files", last.load],
    ["SQL parsing via json_serialize_sql (incl. JSON.parse of the ASTs)", last.parse],
    ["reference resolution + DAG (compile minus parse)", Math.max(0, last.compile - last.parse)]
  ]
  phasesByCost.sort((a, b) => b[1] - a[1])
  const dominant = phasesByCost.map(([k, v]) => `${k} ${v.toFixed(0)} ms`).join("; ")
  console.log(`ratio 10k/1k: ${(total / (base.load + base.compile)).toFixed(2)}x time for 10x models`)
  console.log(`cost at ${last.n}, largest first: ${dominant}`)
  console.log(`target 10,000 models <= 3000 ms and <= 400 MB: ${total <= 3000 && last.rss <= 400 ? "met" : "NOT met"}`)
}

void main()
