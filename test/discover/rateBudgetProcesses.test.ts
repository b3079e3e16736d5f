import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { bundleChildScript } from "../support/childScript"
import { describe, expect, it } from "vitest"
import { tmpDir } from "./harness"

const run = (file: string, args: ReadonlyArray<string>) =>
  new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
    const child = spawn(process.execPath, [file, ...args], { stdio: ["ignore", "pipe", "pipe"] })
    let out = ""
    let err = ""
    child.stdout.on("data", (d) => (out += String(d)))
    child.stderr.on("data", (d) => (err += String(d)))
    child.on("exit", (code) => resolve({ code, out, err }))
  })

describe("RateBudget across real processes", () => {
  it("two concurrent processes draw from one bucket without lost updates (exclusive lock file)", async () => {
    const child = await bundleChildScript(path.join(__dirname, "fixtures", "budgetChild.ts"), "budget")
    const bundle = child.file
    const dir = tmpDir("budget-procs")
    try {
      const results = await Promise.all([run(bundle, [dir, "30"]), run(bundle, [dir, "30"])])
      for (const r of results) expect(r).toMatchObject({ code: 0, out: "done", err: "" })
      const files = fs.readdirSync(dir).filter((f) => f.endsWith(".json"))
      expect(files.length).toBe(1)
      const state = JSON.parse(fs.readFileSync(path.join(dir, files[0] ?? ""), "utf8")) as { tokens: number }
      // 100 - 60 taken; the refill of 0.001/s adds at most a few hundredths during the run.
      expect(state.tokens).toBeGreaterThanOrEqual(40)
      expect(state.tokens).toBeLessThan(40.5)
      expect(fs.readdirSync(dir).filter((f) => f.endsWith(".lock"))).toEqual([])
    } finally {
      child.remove()
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})
