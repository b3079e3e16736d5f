// Bundles the CLI into one file; native and heavy SDK packages stay external and load lazily.
import { build } from "esbuild"
import { readFileSync } from "node:fs"
import { deepImports } from "./deepImports.mjs"

const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"))

await build({
  entryPoints: ["src/main.ts"],
  outfile: "dist/pcli.cjs",
  bundle: true,
  platform: "node",
  target: "node20",
  format: "cjs",
  banner: { js: "#!/usr/bin/env node" },
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
