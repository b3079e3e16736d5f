// Cold start of light commands, as a ratio to `node -e 0` measured in the same run (median of 10).
// `policy check` / `policy show` run on a fresh playground whose compile cache is warm (nothing changed).
import { execFileSync } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { median, printTable, timeProcess } from "./support"

const bin = resolve("dist/pcli.cjs")
const scratch = mkdtempSync(join(tmpdir(), "pcli-bench-startup-"))
process.on("exit", () => rmSync(scratch, { recursive: true, force: true }))
execFileSync(process.execPath, [bin, "playground", "pg"], { cwd: scratch, stdio: "ignore" })
const sample = join(scratch, "pg")
const check = [bin, "policy", "check", "--principal", "agent", "--capability", "apply", "--model", "stg_orders"]
execFileSync(process.execPath, check, { cwd: sample, stdio: "ignore" }) // fills the compile cache
const RUNS = Number(process.env["BENCH_RUNS"] ?? "10")
const TARGET = 2.0

const cases: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
  ["node -e 0 (baseline)", ["-e", "0"]],
  ["pcli --help", [bin, "--help"]],
  ["pcli policy show", [bin, "policy", "show"]],
  ["pcli policy check (nothing changed)", check],
  ["pcli validate", [bin, "validate"]]
]

// Interleaved, so a burst of load on the machine hits every case alike.
const samples = cases.map(() => [] as Array<number>)
timeProcess(process.execPath, [bin, "--help"], sample) // warm the OS file cache, not V8
for (let i = 0; i < RUNS; i++) cases.forEach(([, args], c) => samples[c]!.push(timeProcess(process.execPath, args, sample)))

const base = median(samples[0]!)
const rows = cases.map(([name], c) => {
  const m = median(samples[c]!)
  const ratio = m / base
  return [name, m.toFixed(1), ratio.toFixed(2), c === 0 ? "-" : ratio <= TARGET ? `ok (<= ${TARGET})` : `OVER (> ${TARGET})`]
})
printTable(["command", "median ms", "ratio", "target"], rows)
