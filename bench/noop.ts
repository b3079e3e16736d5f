/**
 * No-op run: a second `pcli run` of 1,000 unchanged models, against the first run that built
 * them (target ≤ 10% of it). Roots build 10k rows from `range()`; every other model reads one
 * model of the layer above, so the no-op run still walks the whole DAG and checks every model.
 */
import { spawnSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { median, printTable, timeProcess } from "./support"

const bin = resolve("dist/pcli.cjs")
const MODELS = Number(process.env["PCLI_BENCH_MODELS"] ?? 1000)
const WIDTH = 100
const ROUNDS = Number(process.env["PCLI_BENCH_ROUNDS"] ?? 4)
const TARGET = 0.1

const generate = (dir: string) => {
  mkdirSync(join(dir, "models"), { recursive: true })
  writeFileSync(join(dir, "pcli.toml"), `[adapter.local]\ntype = "embedded"\n`)
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

const root = mkdtempSync(join(tmpdir(), "pcli-bench-noop-"))
const wall = { first: [] as Array<number>, second: [] as Array<number>, compile: [] as Array<number> }
const cpu = { first: [] as Array<number>, second: [] as Array<number>, compile: [] as Array<number> }
try {
  for (let r = 0; r < ROUNDS; r++) {
    const dir = generate(join(root, `round-${r}`))
    wall.first.push(timeProcess(process.execPath, [bin, "run"], dir))
    wall.second.push(timeProcess(process.execPath, [bin, "run"], dir))
    wall.compile.push(timeProcess(process.execPath, [bin, "compile"], dir))
    // CPU on a fresh copy of the same project, so the first measured run builds everything again.
    const again = generate(join(root, `cpu-${r}`))
    for (const [key, args] of [["first", ["run"]], ["second", ["run"]], ["compile", ["compile"]]] as const) {
      const c = cpuOf(args, again)
      if (c !== undefined) cpu[key].push(c)
    }
  }
} finally {
  rmSync(root, { recursive: true, force: true })
}

const verdict = (ratio: number) => (ratio <= TARGET ? "ok (<= 0.10)" : "OVER (> 0.10)")
const base = median(wall.first)
const rows: Array<Array<string>> = [
  ["first run, builds every model (baseline)", base.toFixed(0), "1.00", "-"],
  ["second run, every model unchanged", median(wall.second).toFixed(0), (median(wall.second) / base).toFixed(3), verdict(median(wall.second) / base)],
  ["  of which pcli compile alone", median(wall.compile).toFixed(0), (median(wall.compile) / base).toFixed(3), "-"]
]
printTable([`pcli run (${MODELS} models), wall`, "median ms", "ratio", "target"], rows)
if (cpu.first.length > 0) {
  const cbase = median(cpu.first)
  console.log("")
  printTable(
    [`pcli run (${MODELS} models), CPU`, "median s", "ratio", "target"],
    [
      ["first run, builds every model (baseline)", cbase.toFixed(2), "1.00", "-"],
      ["second run, every model unchanged", median(cpu.second).toFixed(2), (median(cpu.second) / cbase).toFixed(3), verdict(median(cpu.second) / cbase)],
      ["  of which pcli compile alone", median(cpu.compile).toFixed(2), (median(cpu.compile) / cbase).toFixed(3), "-"]
    ]
  )
}
