// The bin's V8 code cache (scripts/loader.cjs) through the binary: a command that changes V8's flags at run time
// (`run` sets the heap flags, src/platform/heap.ts) must not leave the full bundle a cache every plain start rejects.
import { execFileSync } from "node:child_process"
import { cpSync, mkdtempSync, renameSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { basename, join, resolve } from "node:path"
import { expect, it } from "vitest"
import { runCli } from "../support/cli"

const root = resolve(__dirname, "../..")

/** Each cache file as a fresh, flag-free node sees it for the bundle, compiled as the loader compiles it: "absent", "accepted" or "rejected". */
const asPlainStartSees = (bundle: string, files: ReadonlyArray<string>): ReadonlyArray<string> => {
  const check = `const vm = require("node:vm"), fs = require("node:fs"), [bundle, ...files] = process.argv.slice(1)
const code = require("node:module").wrap(fs.readFileSync(bundle, "utf8"))
console.log(JSON.stringify(files.map((f) => !fs.existsSync(f) ? "absent" : new vm.Script(code, { filename: bundle, cachedData: fs.readFileSync(f) }).cachedDataRejected ? "rejected" : "accepted")))`
  return JSON.parse(execFileSync(process.execPath, ["-e", check, bundle, ...files], { encoding: "utf8" }))
}

it("a run (V8 flags changed) writes no full-bundle cache; a plain start writes one the next start accepts", async () => {
  // A copy of dist/ in the worktree, without the full bundle's cache: its bundles require their externals from the worktree's node_modules.
  const dist = mkdtempSync(join(root, ".tmp-dist-"))
  const scratch = mkdtempSync(join(tmpdir(), "pcli-codecache-"))
  try {
    cpSync(join(root, "dist"), dist, { recursive: true, filter: (src) => basename(src) !== "pcli-bundle.v8cache" })
    const bin = join(dist, "pcli.cjs")
    const cacheFile = join(dist, "pcli-bundle.v8cache")
    // playground runs on the full bundle and changes no flags: with no cache it writes one.
    expect((await runCli(["playground", "pg"], { cwd: scratch, bin })).code).toBe(0)
    const afterPlayground = join(scratch, "after-playground.v8cache")
    renameSync(cacheFile, afterPlayground)
    expect((await runCli(["run"], { cwd: join(scratch, "pg"), bin })).code).toBe(0)
    const [plain, afterRun] = asPlainStartSees(join(dist, "pcli-bundle.cjs"), [afterPlayground, cacheFile])
    expect(plain).toBe("accepted")
    expect(["absent", "accepted"]).toContain(afterRun)
  } finally {
    rmSync(dist, { recursive: true, force: true })
    rmSync(scratch, { recursive: true, force: true })
  }
})
