// Bundles the CLI into one file; native and heavy SDK packages stay external and load lazily.
import { build } from "esbuild"
import { execFileSync } from "node:child_process"
import { createHash } from "node:crypto"
import { chmodSync, copyFileSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { deepImports } from "./deepImports.mjs"

const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"))
// The build id keys caches pcli writes (the compile cache): version plus a hash of the sources.
const sources = createHash("sha256")
for (const file of readdirSync("src", { recursive: true }).map(String).filter((f) => f.endsWith(".ts")).sort()) {
  sources.update(file).update("\0").update(readFileSync(`src/${file}`)).update("\0")
}
const buildId = `${pkg.version}+${sources.digest("hex").slice(0, 16)}`

await build({
  entryPoints: ["src/main.ts"],
  outfile: "dist/pcli-bundle.cjs",
  bundle: true,
  platform: "node",
  target: "node20",
  format: "cjs",
  // Lazy `import()`s become `require()` in a promise: every external package ships CommonJS.
  supported: { "dynamic-import": false },
  define: { PCLI_VERSION: JSON.stringify(pkg.version), PCLI_BUILD: JSON.stringify(buildId) },
  external: [
    "better-sqlite3",
    // Loaded by path in the `audit --verify` workers (verifyParallel.ts), never bundled.
    "hash-wasm/dist/blake3.umd.min.js",
    "@duckdb/*",
    "ioredis",
    "@aws-sdk/*",
    "@azure/*",
    "@google-cloud/*",
    "@opentelemetry/*",
    "@effect/opentelemetry"
  ],
  plugins: [deepImports],
  minify: true,
  logLevel: "warning"
})

// The bin is a small loader that runs the bundle with a V8 code cache, made here once.
copyFileSync("scripts/loader.cjs", "dist/pcli.cjs")
chmodSync("dist/pcli.cjs", 0o755)
rmSync("dist/pcli-bundle.v8cache", { force: true })
// Made by a real command (parse, layers, config, output) on the sample project: `--help` is answered
// before @effect/cli parses anything, so a cache made by it would leave the command path cold.
execFileSync(process.execPath, ["../../dist/pcli.cjs", "validate"], { cwd: "examples/sample", stdio: "ignore" })
