// Bundles and runs every bench/*.ts (or the ones named on the command line), one after another.
// Prints each bench's duration and the load average around it, and exits 1 if any bench failed
// (a non-zero exit, a signal, or a bundle that did not build), after running the rest.
import { build } from "esbuild"
import { spawnSync } from "node:child_process"
import { readdirSync } from "node:fs"
import { loadavg } from "node:os"

/** Modules the benches import, not benches: running one would print nothing and prove nothing. */
const HELPERS = new Set(["support", "projectMix"])

const requested = process.argv.slice(2)
const names = readdirSync(new URL(".", import.meta.url))
  .filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"))
  .map((f) => f.slice(0, -3))
  .filter((n) => (requested.length === 0 ? !HELPERS.has(n) : requested.includes(n)))
  .sort()
const unknown = requested.filter((n) => !names.includes(n))
if (unknown.length > 0) {
  console.error(`no bench named ${unknown.join(", ")} (benches: bench/*.ts)`)
  process.exit(2)
}

const load = () => loadavg().map((l) => l.toFixed(1)).join(" ")
const minutes = (ms) => (ms < 60_000 ? `${(ms / 1000).toFixed(0)} s` : `${(ms / 60_000).toFixed(1)} min`)
const results = []
const started = performance.now()
for (const name of names) {
  const outfile = `dist/bench/${name}.mjs`
  console.log(`\n## ${name}\n`)
  const before = load()
  const t0 = performance.now()
  let outcome
  try {
    await build({
      entryPoints: [`bench/${name}.ts`],
      outfile,
      bundle: true,
      platform: "node",
      format: "esm",
      packages: "external",
      logLevel: "warning"
    })
    const r = spawnSync(process.execPath, [outfile], { stdio: "inherit" })
    outcome = r.error !== undefined ? `failed (${r.error.message})` : r.signal !== null ? `failed (killed by ${r.signal})` : r.status === 0 ? "ok" : `failed (exit ${r.status})`
  } catch (e) {
    outcome = `failed (bundle: ${e instanceof Error ? e.message.split("\n")[0] : String(e)})`
  }
  const ms = performance.now() - t0
  results.push({ name, outcome, ms, before, after: load() })
  console.log(`\n(${name}: ${outcome}, ${minutes(ms)}, load average ${before} before, ${load()} after)`)
}

const failed = results.filter((r) => r.outcome !== "ok")
if (results.length > 1) {
  console.log(`\n## summary: ${results.length} benches, ${failed.length} failed, ${minutes(performance.now() - started)} in all\n`)
  for (const r of results) console.log(`- ${r.name}: ${r.outcome}, ${minutes(r.ms)} (load ${r.before} → ${r.after})`)
}
process.exitCode = failed.length === 0 ? 0 : 1
