// Bundles and runs every bench/*.ts (or the ones named on the command line), one after another.
import { build } from "esbuild"
import { spawnSync } from "node:child_process"
import { readdirSync } from "node:fs"

const requested = process.argv.slice(2)
const names = readdirSync(new URL(".", import.meta.url))
  .filter((f) => f.endsWith(".ts"))
  .map((f) => f.slice(0, -3))
  .filter((n) => requested.length === 0 || requested.includes(n))
  .sort()

let failed = 0
for (const name of names) {
  const outfile = `dist/bench/${name}.mjs`
  await build({
    entryPoints: [`bench/${name}.ts`],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    packages: "external",
    logLevel: "warning"
  })
  console.log(`\n## ${name}\n`)
  const r = spawnSync(process.execPath, [outfile], { stdio: "inherit" })
  if (r.status !== 0) failed++
}
process.exitCode = failed === 0 ? 0 : 1
