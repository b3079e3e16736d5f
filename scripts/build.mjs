// Bundles the CLI into one file; native and heavy SDK packages stay external and load lazily.
import { build } from "esbuild"
import { execFileSync } from "node:child_process"
import { chmodSync, copyFileSync, readFileSync, rmSync } from "node:fs"
import { deepImports } from "./deepImports.mjs"

const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"))

await build({
  entryPoints: ["src/main.ts"],
  outfile: "dist/pcli-bundle.cjs",
  bundle: true,
  platform: "node",
  target: "node20",
  format: "cjs",
  // Lazy `import()`s become `require()` in a promise: every external package ships CommonJS.
  supported: { "dynamic-import": false },
  define: { PCLI_VERSION: JSON.stringify(pkg.version) },
  external: [
    "better-sqlite3",
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
