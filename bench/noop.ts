/**
 * No-op run: a second `pcli run` of 1,000 unchanged models, against the first run that built
 * them (target ≤ 10% of it), for each mix (BENCH_MIX, bench/projectMix.ts). Today's shapes: roots
 * build 10k rows from `range()`, every other model reads one model of the layer above, so the
 * no-op run still walks the whole DAG and checks every model. The realistic mix: joins, CTEs,
 * windows, aggregates, subqueries and UNION ALL in layers of varying width, each model with tests.
 * Each process is timed for wall and CPU at once (GNU time). Rounds: PCLI_BENCH_ROUNDS (default 5); models: PCLI_BENCH_MODELS.
 */
import { spawnSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { loadavg, tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { type Mix, mixesToRun, realisticModels, writeModels } from "./projectMix"
import { median, printTable, spread } from "./support"

const bin = resolve("dist/pcli.cjs")
const MODELS = Number(process.env["PCLI_BENCH_MODELS"] ?? 1000)
const WIDTH = 100
const ROUNDS = Number(process.env["PCLI_BENCH_ROUNDS"] ?? 5)
const TARGET = 0.1

const generate = (dir: string, mix: Mix) => {
  mkdirSync(join(dir, "models"), { recursive: true })
  writeFileSync(join(dir, "pcli.toml"), `[adapter.local]\ntype = "embedded"\n`)
  if (mix === "realistic") {
    writeModels(dir, realisticModels(MODELS, 10_000), "w")
    return dir
  }
  for (let i = 0; i < MODELS; i++) {
    const name = `m${String(i).padStart(4, "0")}`
    const upstream = i < WIDTH ? undefined : `m${String(i - WIDTH).padStart(4, "0")}`
    const sql = upstream === undefined ? `SELECT range AS id, range % 97 AS v FROM range(10000)` : `SELECT id, v + 1 AS v FROM main.${upstream}`
    writeFileSync(join(dir, "models", `${name}.sql`), sql)
    writeFileSync(join(dir, "models", `${name}.toml`), `name = "${name}"\n[target]\ncatalog = "w"\nschema = "main"\ntable = "${name}"\n`)
  }
  return dir
}

/** Wall ms and CPU seconds (user + sys, from GNU time when present) of one process: wall time is noisy on a shared machine. */
const measure = (args: ReadonlyArray<string>, cwd: string): { wall: number; cpu: number | undefined } => {
  const gnuTime = existsSync("/usr/bin/time")
  const out = join(cwd, ".cpu")
  const t0 = performance.now()
  const r = gnuTime
    ? spawnSync("/usr/bin/time", ["-o", out, "-f", "%U %S", process.execPath, bin, ...args], { cwd, stdio: "ignore" })
    : spawnSync(process.execPath, [bin, ...args], { cwd, stdio: "ignore" })
  const wall = performance.now() - t0
  if (r.status !== 0) throw new Error(`pcli ${args.join(" ")} exited ${r.status} in ${cwd}`)
  if (!gnuTime) return { wall, cpu: undefined }
  const [user, sys] = readFileSync(out, "utf8").trim().split(/\s+/).slice(-2).map(Number)
  return { wall, cpu: (user ?? 0) + (sys ?? 0) }
}

const verdict = (ratio: number) => (ratio <= TARGET ? "ok (<= 0.10)" : "OVER (> 0.10)")

const measureMix = (mix: Mix) => {
  const root = mkdtempSync(join(tmpdir(), "pcli-bench-noop-"))
  const wall = { first: [] as Array<number>, second: [] as Array<number>, compile: [] as Array<number> }
  const cpu = { first: [] as Array<number>, second: [] as Array<number>, compile: [] as Array<number> }
  try {
    for (let r = 0; r < ROUNDS; r++) {
      // A fresh project each round, so the first run builds every model again.
      const dir = generate(join(root, `round-${r}`), mix)
      for (const [key, args] of [["first", ["run"]], ["second", ["run"]], ["compile", ["compile"]]] as const) {
        const m = measure(args, dir)
        wall[key].push(m.wall)
        if (m.cpu !== undefined) cpu[key].push(m.cpu)
      }
      rmSync(dir, { recursive: true, force: true })
      console.error(`  [${mix}, round ${r + 1}] first ${wall.first[r]!.toFixed(0)} ms, second ${wall.second[r]!.toFixed(0)} ms, compile ${wall.compile[r]!.toFixed(0)} ms (wall)`)
    }
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
  /** A row: the median, its spread, the ratio of medians to the first run and the per-round ratios' spread. */
  const row = (label: string, xs: ReadonlyArray<number>, base: ReadonlyArray<number>, digits: number, target: boolean) => {
    const m = median(xs)
    const ratio = m / median(base)
    return [mix, label, m.toFixed(digits), spread(xs, digits), ratio.toFixed(3), spread(xs.map((x, k) => x / base[k]!), 3), target ? "<= 0.10" : "-", target ? verdict(ratio) : "-"]
  }
  console.log(`\n${mix} mix, ${MODELS} models, medians of ${ROUNDS} rounds (load average ${loadavg().map((l) => l.toFixed(1)).join(" ")})`)
  const header = (unit: string) => ["mix", `pcli run, ${unit}`, "median", "spread", "ratio", "ratio spread", "target", "verdict"]
  printTable(header("wall ms"), [
    row("first run, builds every model (baseline)", wall.first, wall.first, 0, false),
    row("second run, every model unchanged", wall.second, wall.first, 0, true),
    row("  of which pcli compile alone", wall.compile, wall.first, 0, false)
  ])
  if (cpu.first.length > 0) {
    console.log("")
    printTable(header("CPU s"), [
      row("first run, builds every model (baseline)", cpu.first, cpu.first, 2, false),
      row("second run, every model unchanged", cpu.second, cpu.first, 2, true),
      row("  of which pcli compile alone", cpu.compile, cpu.first, 2, false)
    ])
  }
}

for (const mix of mixesToRun()) measureMix(mix)
