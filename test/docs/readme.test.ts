import { spawnSync } from "node:child_process"
import { appendFileSync, chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { makeProject, PCLI_BIN, runCli } from "../support/cli"

const readme = readFileSync(join(__dirname, "../../README.md"), "utf8")
const section = readme.slice(readme.indexOf("## Your first model"), readme.indexOf("Things that trip people up"))
const blocks = (lang: string) => [...section.matchAll(new RegExp("```" + lang + "\\n([\\s\\S]*?)```", "g"))].map((m) => m[1]!)

describe("README: the first-model walkthrough works as written", () => {
  it("the shell blocks build the model; the test and the contract blocks, added as the text says, hold", async () => {
    const root = makeProject()
    const bin = join(root, "..", "readme-bin")
    mkdirSync(bin, { recursive: true })
    writeFileSync(join(bin, "pcli"), `#!/bin/sh\nexec "${process.execPath}" "${PCLI_BIN}" "$@"\n`)
    chmodSync(join(bin, "pcli"), 0o755)
    const sh = blocks("sh")
    expect(sh).toHaveLength(2)
    const env: Record<string, string> = {}
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("PCLI_")) env[k] = v
    env["PATH"] = `${bin}:${env["PATH"] ?? ""}`
    const shell = spawnSync("sh", ["-c", `set -e\n${sh.join("\n")}`], { cwd: root, env, encoding: "utf8" })
    expect(shell.status, shell.stderr).toBe(0)
    expect(shell.stdout).toMatch(/success {3}orders {2}100 rows/)

    const [test, contract] = blocks("toml")
    appendFileSync(join(root, "models/orders.toml"), `\n${test}`)
    writeFileSync(join(root, "models/orders.contract.toml"), contract!)
    const run = await runCli(["run", "--output", "json"], { cwd: root })
    expect(run.code, run.stderr).toBe(0)
    expect(JSON.parse(run.stdout).models).toEqual([expect.objectContaining({ model_name: "orders", status: "success" })])
    const ls = await runCli(["compile", "--output", "json"], { cwd: root })
    expect(JSON.parse(ls.stdout).model_count).toBe(1)
  })
})
