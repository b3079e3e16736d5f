/**
 * `pcli apply` overhead over `pcli run` for a 200-model plan (target ≤ 10%): both build the same
 * 200 models on a fresh embedded warehouse; apply adds the plan read, integrity and staleness
 * checks, the policy gate (200 evaluations, one ledger transaction) and the applied-state record.
 */
import { execFileSync } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { median, printTable, timeProcess } from "./support"

const bin = resolve("dist/pcli.cjs")
const MODELS = 200
const ROUNDS = 5
const TARGET = 0.1

const POLICY = `[adapter.local]\ntype = "embedded"\n\n[policy]\nversion = 1\ndefault_agent_effect = "require_review"\n\n[[policy.rules]]\nprincipal = "agent"\ncapability = "apply"\neffect = "deny"\nscope = { contracted = true }\n`

/** 200 models in 10 layers: each reads one model of the layer above. */
const generate = (dir: string) => {
  mkdirSync(join(dir, "models"), { recursive: true })
  writeFileSync(join(dir, "pcli.toml"), POLICY)
  for (let i = 0; i < MODELS; i++) {
    const name = `m${String(i).padStart(3, "0")}`
    const upstream = i < 20 ? undefined : `m${String(i - 20).padStart(3, "0")}`
    const sql = upstream === undefined ? `SELECT range AS id, range * 2 AS v FROM range(1000)` : `SELECT id, v + 1 AS v FROM main.${upstream}`
    writeFileSync(join(dir, "models", `${name}.sql`), sql)
    writeFileSync(join(dir, "models", `${name}.toml`), `name = "${name}"\n[target]\ncatalog = "w"\nschema = "main"\ntable = "${name}"\n`)
  }
  return dir
}

const root = mkdtempSync(join(tmpdir(), "pcli-bench-gate-"))
const run: Array<number> = []
const apply: Array<number> = []
try {
  for (let r = 0; r < ROUNDS; r++) {
    const a = generate(join(root, `run-${r}`))
    run.push(timeProcess(process.execPath, [bin, "run"], a))
    const b = generate(join(root, `apply-${r}`))
    const planned = JSON.parse(execFileSync(process.execPath, [bin, "plan", "--output", "json"], { cwd: b, encoding: "utf8" })) as { plan_id: string }
    apply.push(timeProcess(process.execPath, [bin, "apply", planned.plan_id], b))
  }
} finally {
  rmSync(root, { recursive: true, force: true })
}

const base = median(run)
const overhead = median(apply) / base - 1
printTable(
  ["command (200 models)", "median ms", "ratio", "target"],
  [
    ["pcli run (baseline)", base.toFixed(0), "1.00", "-"],
    ["pcli apply <plan>", median(apply).toFixed(0), (1 + overhead).toFixed(2), overhead <= TARGET ? `ok (overhead ${(overhead * 100).toFixed(1)}% <= 10%)` : `OVER (overhead ${(overhead * 100).toFixed(1)}% > 10%)`]
  ]
)
