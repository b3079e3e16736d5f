/**
 * No-op run: a second `pcli run` of 1,000 unchanged models, against the first run that built
 * them (target ≤ 10% of it). Roots build 10k rows from `range()`; every other model reads one
 * model of the layer above, so the no-op run still walks the whole DAG and checks every model.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { median, printTable, timeProcess } from "./support"

const bin = resolve("dist/pcli.cjs")
const MODELS = Number(process.env["PCLI_BENCH_MODELS"] ?? 1000)
const WIDTH = 100
const ROUNDS = Number(process.env["PCLI_BENCH_ROUNDS"] ?? 2)
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

const root = mkdtempSync(join(tmpdir(), "pcli-bench-noop-"))
const first: Array<number> = []
const second: Array<number> = []
try {
  for (let r = 0; r < ROUNDS; r++) {
    const dir = generate(join(root, `round-${r}`))
    first.push(timeProcess(process.execPath, [bin, "run"], dir))
    second.push(timeProcess(process.execPath, [bin, "run"], dir))
  }
} finally {
  rmSync(root, { recursive: true, force: true })
}

const base = median(first)
const ratio = median(second) / base
printTable(
  [`pcli run (${MODELS} models)`, "median ms", "ratio", "target"],
  [
    ["first run, builds every model (baseline)", base.toFixed(0), "1.00", "-"],
    ["second run, every model unchanged", median(second).toFixed(0), ratio.toFixed(3), ratio <= TARGET ? "ok (<= 0.10)" : "OVER (> 0.10)"]
  ]
)
