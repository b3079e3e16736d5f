// Cold start of every read command, as a ratio to `node -e 0` measured in the same run (median of 10).
// They run on a fresh playground that has been run once, planned, and frozen and unfrozen (a state store
// with runs and ledger rows, one plan) and whose compile cache is warm (nothing changed since).
import { execFileSync } from "node:child_process"
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { median, printTable, timeProcess } from "./support"

const bin = resolve("dist/pcli.cjs")
const scratch = mkdtempSync(join(tmpdir(), "pcli-bench-startup-"))
process.on("exit", () => rmSync(scratch, { recursive: true, force: true }))
execFileSync(process.execPath, [bin, "playground", "pg"], { cwd: scratch, stdio: "ignore" })
const sample = join(scratch, "pg")
const pcli = (...args: ReadonlyArray<string>) => execFileSync(process.execPath, [bin, ...args], { cwd: sample, stdio: "ignore" })
pcli("run")
pcli("plan")
pcli("policy", "freeze", "--reason", "bench")
pcli("policy", "unfreeze", "--reason", "bench")
const planId = readdirSync(join(sample, ".pcli", "plans"))[0]!.replace(/\.json$/, "")
const check = ["policy", "check", "--principal", "agent", "--capability", "apply", "--model", "stg_orders"]
pcli(...check) // fills the compile cache
const RUNS = Number(process.env["BENCH_RUNS"] ?? "10")
const TARGET = 2.0

// Every read command (interface: read-only, or writes nothing but brief's cursor), and --help.
// `product` runs on a name with no spec: it starts and fails as a real one starts.
const commands: ReadonlyArray<ReadonlyArray<string>> = [
  ["--help"],
  ["validate"],
  ["compile"],
  ["ls"],
  ["lineage", "stg_orders"],
  ["policy", "show"],
  check,
  ["policy", "test"],
  ["policy", "replay", "--config", "pcli.toml"],
  ["audit"],
  ["audit", "--scorecard"],
  ["audit", "--for", "stg_orders"],
  ["audit", "--verify"],
  ["history"],
  ["state", "info"],
  ["brief"],
  ["review", "--queue"],
  ["review", planId, "--status"],
  ["product", "list"],
  ["product", "status", "orders"],
  ["product", "journal", "orders"],
  ["product", "verify", "orders"]
]
// What `audit --verify` cannot cost less than (decisions 35: it reads the witness in the DuckDB file): node, DuckDB's
// binding and a READ_ONLY open of this warehouse with `SELECT 1`, no pcli code at all (as the verify's reader does).
const witnessFloor = join(scratch, "witness-floor.cjs")
writeFileSync(
  witnessFloor,
  `const b = require(${JSON.stringify(createRequire(import.meta.url).resolve("@duckdb/node-bindings"))});\n` +
    `(async () => { const c = b.create_config(); b.set_config(c, "access_mode", "READ_ONLY"); const db = await b.open(process.argv[2], c); await b.query(await b.connect(db), "SELECT 1"); process.exit(0) })()\n`
)
const label = (args: ReadonlyArray<string>) => `pcli ${args.map((a) => (a === planId ? "<plan-id>" : a)).join(" ")}`
const FLOOR = "witness floor: DuckDB READ_ONLY open, no pcli"
// Node parses the file NODE_EXTRA_CA_CERTS names at every start, baseline included: where the environment sets it, the
// baseline without it is printed too, so the ratios can be read against what a plain Node start costs.
const extraCa = process.env["NODE_EXTRA_CA_CERTS"]
const PLAIN = "node -e 0 without NODE_EXTRA_CA_CERTS"
const withoutCa = { ...process.env, NODE_EXTRA_CA_CERTS: undefined }
const cases: ReadonlyArray<readonly [string, ReadonlyArray<string>, NodeJS.ProcessEnv?]> = [
  ["node -e 0 (baseline)", ["-e", "0"]],
  ...commands.map((args) => [label(args), [bin, ...args]] as const),
  [FLOOR, [witnessFloor, join(sample, ".pcli", "warehouse.duckdb")]],
  ...(extraCa === undefined ? [] : [[PLAIN, ["-e", "0"], withoutCa] as const])
]

// Interleaved, so a burst of load on the machine hits every case alike.
const samples = cases.map(() => [] as Array<number>)
for (const [, args, env] of cases) timeProcess(process.execPath, args, sample, env) // warm the OS file cache (and a missing V8 cache)
for (let i = 0; i < RUNS; i++) cases.forEach(([, args, env], c) => samples[c]!.push(timeProcess(process.execPath, args, sample, env)))

const base = median(samples[0]!)
const rows = cases.map(([name], c) => {
  const m = median(samples[c]!)
  const ratio = m / base
  return [name, m.toFixed(1), ratio.toFixed(2), c === 0 ? "-" : name === FLOOR || name === PLAIN ? "(not a command)" : ratio <= TARGET ? `ok (<= ${TARGET})` : `OVER (> ${TARGET})`]
})
printTable(["command", "median ms", "ratio", "target"], rows)
console.log(`\n${FLOOR}: the least \`audit --verify\` can cost, since it must read the warehouse's witness (decisions 35).`)
if (extraCa !== undefined) console.log(`${PLAIN}: the environment names ${extraCa}, which every start above parses, the baseline's included.`)
