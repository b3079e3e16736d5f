#!/usr/bin/env node
// The pcli bin, bundled by the build with the dispatcher (src/dispatch.ts), which reads the line once
// against the build-time command manifest and answers --help without a bundle; a read command's plain
// line goes to its light entry (src/light/), any other to the full bundle. The bundle that runs the
// line (a light entry, else the full one) runs with a V8 code cache (Node 20 has no module compile
// cache), which saves most of the bundle's compile time at every start.
"use strict"
const { readFileSync, writeFileSync } = require("node:fs")
const { join } = require("node:path")

let handOver = "pcli-bundle"
try {
  handOver = require("../src/dispatch").dispatch(__dirname, process.argv.slice(2))
} catch {
  // No manifest (a partial build): the bundle reads the command line itself.
}

const source = (name) => {
  try {
    return [name, readFileSync(join(__dirname, `${name}.cjs`), "utf8")]
  } catch {
    // No light entry (a partial build): the full bundle runs the line.
    return ["pcli-bundle", readFileSync(join(__dirname, "pcli-bundle.cjs"), "utf8")]
  }
}

if (handOver !== undefined) {
  const Module = require("node:module")
  const vm = require("node:vm")
  const [name, code] = source(handOver)
  const bundle = join(__dirname, `${name}.cjs`)
  // The full bundle's policy commands have their own cache (made by `policy test` at build time), with the functions they run compiled.
  const line = globalThis[Symbol.for("pcli/commandLine")]
  // `audit --for` runs other code than audit's list (the custody chain: plans, the compile index's graph): its own cache, made by that form.
  const light = globalThis[Symbol.for("pcli/lightLine")]
  const custody = name === "pcli-audit" && light !== undefined && Object.hasOwn(light.flags, "--for")
  const group = name === "pcli-bundle" && line !== undefined && line._tag === "Run" && line.argv[0] === "policy" ? "policy." : custody ? "custody." : ""
  const cacheFile = join(__dirname, `${name}.${group}v8cache`)
  let cachedData
  try {
    cachedData = readFileSync(cacheFile)
  } catch {}
  // The bundle holds no `import()` (the build turns lazy loads into `require`), so no loader hook is needed.
  const script = new vm.Script(Module.wrap(code), { filename: bundle, cachedData })
  if (cachedData === undefined || script.cachedDataRejected) {
    const v8 = require("node:v8")
    const flagsAtCompile = v8.cachedDataVersionTag()
    // Another Node version or a first run: refresh the cache once the command is done.
    process.once("beforeExit", () => {
      // A command that changed V8 flags (a run's heap flags) would write a cache every plain start rejects.
      if (v8.cachedDataVersionTag() !== flagsAtCompile) return
      try {
        writeFileSync(cacheFile, script.createCachedData())
      } catch {}
    })
  }
  // A light command is done when the event loop empties (its output written, nothing pending): exit
  // there, without tearing down the environment and heap, which a natural exit spends time on.
  if (name !== "pcli-bundle") process.once("beforeExit", () => process.exit())
  const bundleModule = { exports: {} }
  script.runInThisContext().call(bundleModule.exports, bundleModule.exports, require, bundleModule, bundle, __dirname)
}
