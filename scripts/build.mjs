// Bundles the CLI into one file; native and heavy SDK packages stay external and load lazily.
import { build } from "esbuild"
import { execFileSync, spawnSync } from "node:child_process"
import { createHash } from "node:crypto"
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { createRequire } from "node:module"
import { deepImports } from "./deepImports.mjs"

const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"))
// The build id keys caches pcli writes (the compile cache): version plus a hash of the sources.
const sources = createHash("sha256")
for (const file of readdirSync("src", { recursive: true }).map(String).filter((f) => f.endsWith(".ts")).sort()) {
  sources.update(file).update("\0").update(readFileSync(`src/${file}`)).update("\0")
}
const buildId = `${pkg.version}+${sources.digest("hex").slice(0, 16)}`
// `npm ci` builds (prepare) and `npm test` builds again (pretest): a build whose inputs are unchanged
// since the last one is skipped. Inputs: the sources, these scripts, the lockfile, tsconfig (esbuild reads it), the sample project, node.
const inputs = createHash("sha256").update(buildId).update(process.version)
for (const dir of ["scripts", "examples/sample"]) {
  for (const file of readdirSync(dir, { recursive: true }).map(String).sort()) {
    if (!file.includes(".pcli") && statSync(`${dir}/${file}`).isFile()) inputs.update(file).update("\0").update(readFileSync(`${dir}/${file}`)).update("\0")
  }
}
const inputsDigest = inputs.update(readFileSync("package-lock.json")).update(readFileSync("tsconfig.json")).digest("hex")
const stamp = "dist/.build-inputs"
if (!process.argv.includes("--force") && existsSync("dist/pcli.cjs") && existsSync(stamp) && readFileSync(stamp, "utf8") === inputsDigest) {
  console.log("dist/ is current (its inputs are unchanged): build skipped; --force rebuilds")
  process.exit(0)
}
rmSync(stamp, { force: true })

// Effect's Utils.js probes at load whether a minifier renamed `effect_internal_function` by formatting a stack trace, which
// makes V8 work out source positions in the bundle at every start. esbuild keeps property names: the probe is true in every bundle.
const effectProbe = {
  name: "effect-probe",
  setup(build) {
    build.onLoad({ filter: /[\\/]effect[\\/]dist[\\/]esm[\\/]Utils\.js$/ }, (args) => {
      const source = readFileSync(args.path, "utf8")
      const probe = `/*#__PURE__*/standard.effect_internal_function(() => new Error().stack)?.includes("effect_internal_function") === true`
      if (!source.includes(probe)) throw new Error(`${args.path}: no isNotOptimizedAway probe to replace`)
      return { contents: source.replace(probe, "true"), loader: "js" }
    })
  }
}

const common = {
  bundle: true,
  platform: "node",
  target: "node20",
  format: "cjs",
  // Lazy `import()`s become `require()` in a promise: every external package ships CommonJS.
  supported: { "dynamic-import": false },
  define: { PCLI_VERSION: JSON.stringify(pkg.version), PCLI_BUILD: JSON.stringify(buildId) },
  external: [
    "better-sqlite3",
    // Loaded by path in the `audit --verify` workers (verifyParallel.ts), never bundled; the whole
    // package (every algorithm's WASM) only when a verify first needs it.
    "hash-wasm/dist/blake3.umd.min.js",
    "hash-wasm",
    "@duckdb/*",
    "ioredis",
    "@aws-sdk/*",
    "@azure/*",
    "@google-cloud/*",
    "@opentelemetry/*",
    "@effect/opentelemetry",
    // Team state on PostgreSQL (decision 36): loaded only when [state] url names one. Bundled behind a lazy import it
    // cost every light entry ~60 ms of start-up (its module graph wrapped for lazy init); external it loads its own copy
    // of effect (same version), so store code tells its errors by `_tag`, never `instanceof`.
    "@effect/sql-pg",
    "pg"
  ],
  plugins: [deepImports, effectProbe],
  minify: true,
  logLevel: "warning"
}

/** `external` with @duckdb/node-api's JavaScript (~180 files) bundled, into a code cache; DuckDB's native binding stays external. */
const bundlingDuckDb = (external) => [...external.filter((e) => e !== "@duckdb/*"), "@duckdb/node-bindings", "@duckdb/node-bindings-*"]
// DuckDB's JavaScript in the full bundle: most of its commands open the warehouse, and required from node_modules it cost
// each of them 65-90 ms of resolving and compiling.
await build({ ...common, external: bundlingDuckDb(common.external), entryPoints: ["src/main.ts"], outfile: "dist/pcli-bundle.cjs" })
// The light entries: one bundle per command of src/light/options.ts's LIGHT_COMMANDS, from src/light/<words joined by ->.ts,
// without @effect/cli or any other command. The bin (src/dispatch.ts) runs a line it read in full on its command's bundle, when there is one.
await build({
  ...common,
  stdin: {
    contents: `import { LIGHT_COMMANDS } from "./src/light/options"; import { entryName } from "./src/light/entry"; process.stdout.write(JSON.stringify(Object.keys(LIGHT_COMMANDS).map((c) => entryName(c.split(" ")))))`,
    resolveDir: ".",
    loader: "ts"
  },
  outfile: "dist/light-gen.cjs"
})
const lightEntries = Object.fromEntries(JSON.parse(execFileSync(process.execPath, ["dist/light-gen.cjs"], { encoding: "utf8" })).map((entry) => [`pcli-${entry}`, entry]))
rmSync("dist/light-gen.cjs")
for (const old of readdirSync("dist").filter((f) => /^pcli-.*\.(cjs|v8cache)$/.test(f) && !f.startsWith("pcli-bundle") && !f.startsWith("pcli-read-ahead") && !f.startsWith("pcli-duckdb-reader"))) rmSync(`dist/${old}`)
// compile hashes every file it reads: it keeps node:crypto (and its one-shot hash) loaded up front.
const eagerCrypto = new Set(["pcli-compile"])
// In a light entry node:crypto (a few ms to load) loads when a command first hashes or draws random
// bytes, not at start: show and validate never do. A name not listed here fails the build.
const lazyCrypto = {
  name: "lazy-crypto",
  setup(build) {
    build.onResolve({ filter: /^node:crypto$/ }, (args) => (args.namespace === "lazy-crypto" ? { path: args.path, external: true } : { path: args.path, namespace: "lazy-crypto" }))
    build.onLoad({ filter: /.*/, namespace: "lazy-crypto" }, () => ({
      // No one-shot `hash` (whether it exists is known only once crypto is loaded): its one user, compileCache.ts, then uses createHash, the same digest.
      contents: ["createHash", "randomBytes", "randomUUID", "timingSafeEqual"].map((n) => `export const ${n} = (...args) => require("node:crypto").${n}(...args)`).join("\n") + "\nexport const hash = undefined",
      loader: "js"
    }))
  }
}
// pcli's own modules as side-effect free: a bundle then keeps only what it calls of a folder's entry file, not
// every module the entry re-exports (the read-ahead worker uses the SQL reader's fast half, not its DuckDB half).
const pureSources = {
  name: "pure-sources",
  setup(build) {
    build.onResolve({ filter: /^\.\.?\// }, async (args) => {
      if (args.pluginData === "pure-sources") return undefined
      const resolved = await build.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: "pure-sources" })
      return resolved.errors.length > 0 ? undefined : { path: resolved.path, sideEffects: false }
    })
  }
}
// better-sqlite3's JavaScript inside a light entry (so the entry's V8 code cache holds it), its addon loaded by path:
// required from node_modules, its ten files cost a state command ~7 ms to resolve and compile, and `bindings` walks the stack.
const bundledSqlite = {
  name: "bundled-sqlite",
  setup(build) {
    build.onLoad({ filter: /[\\/]better-sqlite3[\\/]lib[\\/]database\.js$/ }, async (args) => {
      const source = readFileSync(args.path, "utf8")
      const load = "require('bindings')('better_sqlite3.node')"
      if (!source.includes(load)) throw new Error(`${args.path}: no ${load} to replace`)
      const addon = `require(require("node:path").join(require("node:path").dirname(require.resolve("better-sqlite3/package.json")), "build", "Release", "better_sqlite3.node"))`
      return { contents: source.replace(load, addon), loader: "js" }
    })
  }
}
const lightExternal = common.external.filter((e) => e !== "better-sqlite3")
// @duckdb/node-api's JavaScript (~180 files) inside the audit entry, in its code cache: required from node_modules it cost
// `audit --verify` (the witness read) ~50 ms of resolving and compiling. The native binding stays external. Only there:
// in the others DuckDB loads on a cache miss at most, and 200 KB more of bundle would cost every start.
const bundledDuckDb = new Set(["pcli-audit"])
const duckDbBundled = bundlingDuckDb(lightExternal)
// The compile's read-ahead worker (services/Project/cache/readAhead.ts starts it from beside the bundle that runs).
await build({ ...common, plugins: [...common.plugins, pureSources], entryPoints: ["src/services/Project/cache/readAheadWorker.ts"], outfile: "dist/pcli-read-ahead.cjs" })
// The read-only DuckDB worker the bin starts for `audit --verify` (services/Warehouse/readOnlyWorker.ts): no Effect, the binding external.
await build({ ...common, entryPoints: ["src/services/Warehouse/readOnlyWorker.ts"], outfile: "dist/pcli-duckdb-reader.cjs" })
for (const [name, entry] of Object.entries(lightEntries)) {
  // pcli's sources side-effect free here too: a module the command never calls is left out, not evaluated at every start.
  await build({ ...common, logOverride: { "require-resolve-not-external": "silent" }, external: bundledDuckDb.has(name) ? duckDbBundled : lightExternal, plugins: [...common.plugins, pureSources, bundledSqlite, ...(eagerCrypto.has(name) ? [] : [lazyCrypto])], entryPoints: [`src/light/${entry}.ts`], outfile: `dist/${name}.cjs` })
  rmSync(`dist/${name}.v8cache`, { force: true })
}
// The command manifest (every command's shape and --help text), made by the real command tree.
await build({
  ...common,
  stdin: {
    contents: `import { rootTree } from "./src/cli/root"; import { toManifest } from "./src/cli/manifest"; process.stdout.write(JSON.stringify(toManifest(rootTree(), PCLI_VERSION)))`,
    resolveDir: ".",
    loader: "ts"
  },
  outfile: "dist/manifest-gen.cjs"
})
writeFileSync("dist/pcli-commands.json", execFileSync(process.execPath, ["dist/manifest-gen.cjs"]))
rmSync("dist/manifest-gen.cjs")
// An empty state store at the current version, made by the real migrations: read commands open it
// (read-only) when the project has no store yet, instead of migrating one in memory.
rmSync("dist/pcli-empty-state.sqlite", { force: true })
await build({
  ...common,
  stdin: {
    contents: `import * as NodeContext from "@effect/platform-node/NodeContext"; import { Effect, Layer } from "effect"; import * as StateStore from "./src/services/StateStore/StateStore"
Effect.runPromise(Effect.scoped(Layer.build(StateStore.layer(process.argv[2], "write"))).pipe(Effect.provide(NodeContext.layer)))`,
    resolveDir: ".",
    loader: "ts"
  },
  outfile: "dist/empty-store-gen.cjs"
})
execFileSync(process.execPath, ["dist/empty-store-gen.cjs", "dist/pcli-empty-state.sqlite"])
rmSync("dist/empty-store-gen.cjs")
// A rollback journal, not WAL: a read-only open of the image then never creates -wal/-shm beside it.
const emptyStore = new (createRequire(import.meta.url)("better-sqlite3"))("dist/pcli-empty-state.sqlite")
emptyStore.pragma("journal_mode = DELETE")
emptyStore.close()

// The bin: a small loader with the argv reader over the command manifest (src/dispatch.ts, no
// @effect/cli runtime) bundled in, which runs the bundle with a V8 code cache, made here once.
rmSync("dist/pcli-dispatch.cjs", { force: true })
await build({ ...common, entryPoints: ["scripts/loader.cjs"], outfile: "dist/pcli.cjs" })
chmodSync("dist/pcli.cjs", 0o755)
rmSync("dist/pcli-bundle.v8cache", { force: true })
rmSync("dist/pcli-bundle.policy.v8cache", { force: true })
// The light validate's cache, made by a real command on the sample project.
execFileSync(process.execPath, ["../../dist/pcli.cjs", "validate"], { cwd: "examples/sample", stdio: "ignore" })
// The light entries' caches, on a playground with a state store (a freeze and its unfreeze on the ledger)
// and a warm compile cache (their usual case): `policy check` and `compile` after a first run wrote the
// compile index, every other light command by its plain form (after a plan and a run), `audit --for` by its own line.
const playground = mkdtempSync(join(tmpdir(), "pcli-build-"))
try {
  const bin = resolve("dist/pcli.cjs")
  const pg = join(playground, "pg")
  execFileSync(process.execPath, [bin, "playground", "pg"], { cwd: playground, stdio: "ignore" })
  execFileSync(process.execPath, [bin, "policy", "freeze", "--reason", "build"], { cwd: pg, stdio: "ignore" })
  execFileSync(process.execPath, [bin, "policy", "unfreeze", "--reason", "build"], { cwd: pg, stdio: "ignore" })
  const check = [bin, "policy", "check", "--principal", "agent", "--capability", "apply", "--model", "stg_orders"]
  execFileSync(process.execPath, check, { cwd: pg, stdio: "ignore" })
  rmSync("dist/pcli-policy-check.v8cache", { force: true })
  execFileSync(process.execPath, check, { cwd: pg, stdio: "ignore" })
  execFileSync(process.execPath, [bin, "compile", "--output", "json"], { cwd: pg, stdio: "ignore" })
  rmSync("dist/pcli-compile.v8cache", { force: true })
  execFileSync(process.execPath, [bin, "compile", "--output", "json"], { cwd: pg, stdio: "ignore" })
  // A plan on the store, as after `pcli plan`: the caches of `review --queue` and `audit --for` then hold the plan reading they run.
  // The plan also makes the full bundle's cache (the commands above wrote one first): parse, layers, config, the compile and
  // DuckDB's JavaScript, which most of its commands run. Not `run`: it sets V8's heap flags, and a cache made after that is rejected.
  rmSync("dist/pcli-bundle.v8cache", { force: true })
  execFileSync(process.execPath, [bin, "plan"], { cwd: pg, stdio: "ignore" })
  // The full bundle's policy cache: the same check in a form the light entry leaves to the bundle (`--output=text`); freeze made one first.
  rmSync("dist/pcli-bundle.policy.v8cache", { force: true })
  execFileSync(process.execPath, [...check, "--output=text"], { cwd: pg, stdio: "ignore" })
  const manifest = JSON.parse(readFileSync("dist/pcli-commands.json", "utf8"))
  const nodes = (node) => [node, ...node.children.flatMap(nodes)]
  const light = nodes(manifest).filter((n) => lightEntries[`pcli-${n.path.join("-")}`] !== undefined)
  const example = (node) => {
    const lines = node.help.split("\n").map((l) => l.trim())
    const line = lines.slice(lines.findIndex((l) => l.startsWith("EXAMPLE"))).find((l) => `${l} `.startsWith(`pcli ${node.path.join(" ")} `))
    return (line ?? `pcli ${node.path.join(" ")}`).split(" ").slice(1)
  }
  for (const node of light) {
    if (existsSync(`dist/pcli-${node.path.join("-")}.v8cache`)) continue
    // An example may fail here (no such product, no proposed config): its cache still holds the start-up path.
    spawnSync(process.execPath, [bin, ...example(node)], { cwd: pg, stdio: "ignore" })
  }
  // `audit --for`'s own cache (scripts/loader.cjs): the custody chain of a model with a plan and a decision.
  spawnSync(process.execPath, [bin, "audit", "--for", "stg_orders"], { cwd: pg, stdio: "ignore" })
  // Then, after a run (history and audit list rows), the caches made again by each command's plain form, what most starts
  // run (an example's filters may match nothing, or fail: the rows' rendering was then compiled at every start): the bare
  // command, or the line below, or its example when it needs an argument. `review`'s and those made above stay.
  execFileSync(process.execPath, [bin, "run"], { cwd: pg, stdio: "ignore" })
  const plainLines = { lineage: ["lineage", "stg_orders"], "policy replay": ["policy", "replay", "--config", "pcli.toml"] }
  for (const node of light) {
    const path = node.path.join(" ")
    if (path === "review" || path === "compile" || path === "validate" || path === "policy check") continue
    const bare = node.shape.args.every((a) => a.optional) && node.shape.flags.every((f) => f.optional)
    rmSync(`dist/pcli-${node.path.join("-")}.v8cache`, { force: true })
    spawnSync(process.execPath, [bin, ...(plainLines[path] ?? (bare ? node.path : example(node)))], { cwd: pg, stdio: "ignore" })
  }
} finally {
  rmSync(playground, { recursive: true, force: true })
}
writeFileSync(stamp, inputsDigest)
