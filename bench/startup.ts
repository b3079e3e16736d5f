// Cold start of light commands, as a ratio to `node -e 0` measured in the same run (median of 10).
import { resolve } from "node:path"
import { median, printTable, timeProcess } from "./support"

const bin = resolve("dist/pcli.cjs")
const sample = resolve("examples/sample")
const RUNS = 10
const TARGET = 2.5

const cases: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
  ["node -e 0 (baseline)", ["-e", "0"]],
  ["pcli --help", [bin, "--help"]],
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
