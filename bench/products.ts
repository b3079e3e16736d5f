/**
 * Data products: `product verify` and `product compile` for projects of 1 and 200 products.
 * Process rows: median wall time of the binary against `pcli --help` (start-up) in the same run.
 * In-process rows: every product of the project verified / compiled through the service, per product.
 * Target: verify ≤ 50 ms of work per product beyond start-up.
 */
import { NodeContext } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { performance } from "node:perf_hooks"
import { Environment } from "../src/services/Environment/Environment"
import { compileProduct } from "../src/services/Products/compile"
import { type PolicySource, verifyProduct } from "../src/services/Products/verify"
import { loadConfigFile } from "../src/services/ProjectConfig/ProjectConfig"
import * as StateStore from "../src/services/StateStore/StateStore"
import { median, printTable, timeProcess } from "./support"

const bin = resolve("dist/pcli.cjs")
const RUNS = 5
const TARGET_MS = 50

const name = (i: number) => `p${String(i).padStart(4, "0")}`

const spec = (n: string) => `spec_version = 0
[product]
name = "${n}"
intent = "Bench product ${n}"
[product.source]
tables = ["shop.raw.orders", "shop.raw.stores"]
[product.output]
model = "${n}_mart"
grain = ["store_id", "week_start"]
columns = [
  { name = "store_id", type = "Int32", nullable = false },
  { name = "week_start", type = "Date", nullable = false },
  { name = "net_value", type = "Decimal(12,2)", nullable = true },
  { name = "orders", type = "Int64", nullable = false },
]
checks = ["orders >= 0"]
freshness = { max_lag = "8d", time_column = "week_start" }
classifications = { store_id = "internal" }
[product.trust]
agent = "propose_only"
`

const rules = (n: string) =>
  `[[policy.rules]]\nprincipal = "agent"\ncapability = "propose"\neffect = "allow"\nscope = { models = ["${n}_mart"] }\n\n` +
  `[[policy.rules]]\nprincipal = "agent"\ncapability = "apply"\neffect = "require_review"\nscope = { models = ["${n}_mart"] }\n\n`

const makeProject = (count: number) => {
  const dir = mkdtempSync(join(tmpdir(), `pcli-bench-products-${count}-`))
  mkdirSync(join(dir, "products"))
  const names = Array.from({ length: count }, (_, i) => name(i))
  for (const n of names) writeFileSync(join(dir, "products", `${n}.toml`), spec(n))
  writeFileSync(join(dir, "pcli.toml"), `[policy]\nversion = 1\ndefault_agent_effect = "require_review"\n\n${names.map(rules).join("")}[mask]\ninternal = "hash"\n`)
  return { dir, names }
}

const layer = (dir: string) =>
  Layer.mergeAll(NodeContext.layer, Layer.succeed(Environment, {}), StateStore.layer(join(dir, "models", ".pcli-state.sqlite"), "read").pipe(Layer.provide(NodeContext.layer)))

/** Every product verified, then compiled (Phase A), in one process: ms per product. */
const inProcess = (dir: string, names: ReadonlyArray<string>) =>
  Effect.runPromise(
    Effect.gen(function* () {
      const loaded = yield* loadConfigFile(join(dir, "pcli.toml"), {})
      const source: PolicySource = { kind: "loaded", policy: loaded.config.policy, mask: loaded.config.mask, classifications: loaded.config.classifications }
      const project = { root: dir, modelsRel: "models" }
      // At least 200 verifies (a warm-up pass first), so a 1-product project is not one cold sample.
      const rounds = Math.max(1, Math.ceil(200 / names.length))
      const verifyAll = Effect.forEach(names, (n) =>
        Effect.flatMap(verifyProduct(project, n, source), (r) => (r.output.status === "pass" ? Effect.void : Effect.die(`${n}: ${r.output.reason}`)))
      )
      yield* verifyAll
      let t = performance.now()
      for (let i = 0; i < rounds; i++) yield* verifyAll
      const verifyMs = (performance.now() - t) / (names.length * rounds)
      t = performance.now()
      for (const n of names) yield* compileProduct(project, n, source)
      const compileMs = (performance.now() - t) / names.length
      t = performance.now()
      for (const n of names) yield* compileProduct(project, n, source)
      const recompileMs = (performance.now() - t) / names.length
      return { verifyMs, compileMs, recompileMs }
    }).pipe(Effect.provide(layer(dir)))
  )

const small = makeProject(1)
const large = makeProject(200)
const procCases: ReadonlyArray<readonly [string, ReadonlyArray<string>, string]> = [
  ["pcli --help (start-up)", [bin, "--help"], small.dir],
  ["verify of an absent spec, 1 product (start-up + config)", [bin, "product", "verify", "absent"], small.dir],
  ["verify, 1 product", [bin, "product", "verify", name(0)], small.dir],
  ["verify of an absent spec, 200 products (start-up + config)", [bin, "product", "verify", "absent"], large.dir],
  ["verify, 200 products", [bin, "product", "verify", name(0)], large.dir],
  ["compile (idempotent), 1 product", [bin, "product", "compile", name(0)], small.dir],
  ["compile (idempotent), 200 products", [bin, "product", "compile", name(0)], large.dir]
]
// Interleaved, so a burst of load on the machine hits every case alike.
const samples = procCases.map(() => [] as Array<number>)
timeProcess(process.execPath, [bin, "--help"], small.dir)
for (let i = 0; i < RUNS; i++) procCases.forEach(([, args, cwd], c) => samples[c]!.push(timeProcess(process.execPath, args, cwd)))
const med = samples.map(median)
// "Work beyond start-up" for verify: against the same command stopped right after loading pcli.toml.
const baseline: ReadonlyArray<number | undefined> = [undefined, 0, 1, 0, 3, 1, 3]
printTable(
  ["process", "median ms", "beyond", "ms beyond", "target"],
  procCases.map(([label], c) => {
    const b = baseline[c]
    const extra = b === undefined ? undefined : med[c]! - med[b]!
    const verify = label.startsWith("verify,")
    return [
      label,
      med[c]!.toFixed(1),
      b === undefined ? "-" : `#${b + 1}`,
      extra === undefined ? "-" : extra.toFixed(1),
      verify && extra !== undefined ? (extra <= TARGET_MS ? `ok (<= ${TARGET_MS})` : `OVER (> ${TARGET_MS})`) : "-"
    ]
  })
)
console.log("")

const rows: Array<ReadonlyArray<string>> = []
for (const { dir, names } of [small, large]) {
  rmSync(join(dir, "models"), { recursive: true, force: true })
  rmSync(join(dir, ".pcli"), { recursive: true, force: true })
  const r = await inProcess(dir, names)
  rows.push([
    String(names.length),
    r.verifyMs.toFixed(2),
    r.verifyMs <= TARGET_MS ? `ok (<= ${TARGET_MS})` : `OVER (> ${TARGET_MS})`,
    r.compileMs.toFixed(2),
    r.recompileMs.toFixed(2)
  ])
}
printTable(["products", "verify ms/product", "target", "compile (Phase A) ms/product", "re-compile (no-op) ms/product"], rows)
rmSync(small.dir, { recursive: true, force: true })
rmSync(large.dir, { recursive: true, force: true })
