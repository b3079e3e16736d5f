/**
 * No-op run: a second `pcli run` of 1,000 unchanged models, against the first run that built
 * them (target ≤ 10% of it), for each mix (BENCH_MIX, bench/projectMix.ts). Today's shapes: roots
 * build 10k rows from `range()`, every other model reads one model of the layer above, so the
 * no-op run still walks the whole DAG and checks every model. The realistic mix: joins, CTEs,
 * windows, aggregates, subqueries and UNION ALL in layers of varying width, each model with tests.
 */
import { spawnSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { type Mix, mixesToRun, realisticModels, writeModels } from "./projectMix"
import { median, printTable, spread, timeProcess } from "./support"

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

/** CPU seconds (user + sys) of one process, from GNU time; wall time is noisy on a shared machine. */
const cpuOf = (args: ReadonlyArray<string>, cwd: string): number | undefined => {
  if (!existsSync("/usr/bin/time")) return undefined
  const out = join(cwd, ".cpu")
  spawnSync("/usr/bin/time", ["-o", out, "-f", "%U %S", process.execPath, bin, ...args], { cwd, stdio: "ignore" })
  const [user, sys] = readFileSync(out, "utf8").trim().split(/\s+/).slice(-2).map(Number)
  return (user ?? 0) + (sys ?? 0)
}

const verdict = (ratio: number) => (ratio <= TARGET ? "ok (<= 0.10)" : "OVER (> 0.10)")

const measureMix = (mix: Mix) => {
  const root = mkdtempSync(join(tmpdir(), "pcli-bench-noop-"))
  const wall = { first: [] as Array<number>, second: [] as Array<number>, compile: [] as Array<number> }
  const cpu = { first: [] as Array<number>, second: [] as Array<number>, compile: [] as Array<number> }
  try {
    for (let r = 0; r < ROUNDS; r++) {
      const dir = generate(join(root, `round-${r}`), mix)
      wall.first.push(timeProcess(process.execPath, [bin, "run"], dir))
      wall.second.push(timeProcess(process.execPath, [bin, "run"], dir))
      wall.compile.push(timeProcess(process.execPath, [bin, "compile"], dir))
      // CPU on a fresh copy of the same project, so the first measured run builds everything again.
      const again = generate(join(root, `cpu-${r}`), mix)
      for (const [key, args] of [["first", ["run"]], ["second", ["run"]], ["compile", ["compile"]]] as const) {
        const c = cpuOf(args, again)
        if (c !== undefined) cpu[key].push(c)
      }
    }
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
  const row = (label: string, xs: ReadonlyArray<number>, base: number, digits: number, target: boolean) => {
    const m = median(xs)
    return [label, m.toFixed(digits), spread(xs, digits), (m / base).toFixed(3), target ? verdict(m / base) : "-"]
  }
  const base = median(wall.first)
  console.log(`\n${mix} mix, ${MODELS} models, medians of ${ROUNDS} rounds`)
  printTable(["pcli run, wall", "median ms", "spread ms", "ratio", "target"], [
    row("first run, builds every model (baseline)", wall.first, base, 0, false),
    row("second run, every model unchanged", wall.second, base, 0, true),
    row("  of which pcli compile alone", wall.compile, base, 0, false)
  ])
  if (cpu.first.length > 0) {
    const cbase = median(cpu.first)
    console.log("")
    printTable(["pcli run, CPU", "median s", "spread s", "ratio", "target"], [
      row("first run, builds every model (baseline)", cpu.first, cbase, 2, false),
      row("second run, every model unchanged", cpu.second, cbase, 2, true),
      row("  of which pcli compile alone", cpu.compile, cbase, 2, false)
    ])
  }
}

for (const mix of mixesToRun()) measureMix(mix)
