import { execFileSync, spawnSync } from "node:child_process"
import { chmodSync, mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { makeProject, PCLI_BIN, runCli } from "../support/cli"

/** A HOME and PATH with no git identity, where `pcli` is the built binary. */
const newcomerEnv = (root: string) => {
  const home = join(root, "home")
  const bin = join(root, "bin")
  mkdirSync(home, { recursive: true })
  mkdirSync(bin, { recursive: true })
  writeFileSync(join(bin, "pcli"), `#!/bin/sh\nexec "${process.execPath}" "${PCLI_BIN}" "$@"\n`)
  chmodSync(join(bin, "pcli"), 0o755)
  return {
    HOME: home,
    PATH: `${bin}:${process.env["PATH"] ?? ""}`,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: join(home, ".gitconfig"),
    GIT_AUTHOR_NAME: undefined,
    GIT_AUTHOR_EMAIL: undefined,
    GIT_COMMITTER_NAME: undefined,
    GIT_COMMITTER_EMAIL: undefined,
    EMAIL: undefined
  }
}

/** The `$ ` lines of each numbered step of the printed tour, verbatim. */
const tourSteps = (text: string) => {
  const steps: Array<{ title: string; commands: Array<string> }> = []
  for (const line of text.split("\n")) {
    const title = /^\d+\. (.*)$/.exec(line)
    if (title !== null) steps.push({ title: title[1]!, commands: [] })
    else if (line.startsWith("   $ ")) steps[steps.length - 1]!.commands.push(line.slice(5))
  }
  return steps
}

const MARK = "@@pcli-tour-exit:"

describe("pcli playground: the printed tour works as printed", () => {
  const root = makeProject()
  const env = newcomerEnv(root)
  let printed = ""
  let transcript: Array<{ command: string; code: number; output: string }> = []

  beforeAll(async () => {
    // No identity anywhere: the playground's commit must not need one.
    expect(spawnSync("git", ["config", "user.email"], { cwd: root, env: { ...process.env, ...env } as NodeJS.ProcessEnv }).status).not.toBe(0)
    const created = await runCli(["playground", "demo"], { cwd: root, env })
    expect(created.code, created.stderr).toBe(0)
    printed = created.stdout
    // Every printed command, verbatim, in one POSIX shell (so `cd` and `PLAN=` carry), each followed by its exit code.
    const commands = tourSteps(printed).flatMap((s) => s.commands)
    const script = commands.map((c) => `${c}\necho "${MARK}$?"`).join("\n")
    const shellEnv: Record<string, string> = {}
    for (const [k, v] of Object.entries({ ...process.env, ...env })) if (v !== undefined && !k.startsWith("PCLI_")) shellEnv[k] = v
    const out = spawnSync("sh", ["-c", `exec 2>&1\n${script}`], { cwd: root, env: shellEnv, encoding: "utf8" })
    const chunks = out.stdout.split(new RegExp(`${MARK}(\\d+)\\n`))
    transcript = commands.map((command, i) => ({ command, output: chunks[i * 2] ?? "", code: Number(chunks[i * 2 + 1]) }))
  }, 300_000)

  it("the project is a git repository with one commit holding the policy, the product and the contracted model", () => {
    const cwd = join(root, "demo")
    const git = (...args: Array<string>) => execFileSync("git", args, { cwd, encoding: "utf8" }).trim()
    expect(git("rev-list", "--count", "HEAD")).toBe("1")
    // Everything pcli writes as it runs is ignored: the only change since the commit is the tour's edit.
    expect(git("status", "--porcelain")).toBe("M models/stg_customers.sql")
    const files = git("ls-files").split("\n")
    expect(files).toEqual(expect.arrayContaining(["pcli.toml", "products/revenue_by_region.toml", "models/stg_customers.contract.toml", "models/revenue_by_region.contract.toml", "models/revenue_by_region.toml"]))
    expect(git("show", "HEAD:pcli.toml")).toMatch(/\[policy\]/)
    // The product's severity survives lowering into the sidecar.
    expect(git("show", "HEAD:models/revenue_by_region.toml")).toMatch(/\[freshness\][^[]*severity = "warning"/)
  })

  it("prints five steps, and each command exits as the step says", () => {
    const steps = tourSteps(printed)
    expect(steps).toHaveLength(5)
    expect(transcript.map((t) => [t.command, t.code])).toEqual([
      ["cd demo", 0],
      ["pcli run", 0],
      ["cp tour/stg_customers.sql models/stg_customers.sql", 0],
      ["PCLI_PRINCIPAL=agent pcli run --model stg_customers", 1],
      [expect.stringMatching(/^PLAN=\$\(pcli plan --base HEAD/), 0],
      ['pcli review "$PLAN"', 0],
      ['pcli review "$PLAN" --approve', 0],
      ['pcli apply "$PLAN"', 0],
      ["pcli audit", 0]
    ])
  })

  it("shows what pcli is for: the agent refused by rule 0, the human's change reviewed, approved, applied and audited", () => {
    const by = (command: string) => transcript.find((t) => t.command === command)!.output
    expect(by("pcli run")).toMatch(/success \(7 built/)
    expect(by("pcli run")).toMatch(/freshness revenue_by_region {2}fresh/)
    expect(by("PCLI_PRINCIPAL=agent pcli run --model stg_customers")).toMatch(/^error\[run-needs-plan\]: an agent may not run stg_customers \(deny, rule 0\)/m)
    expect(by('pcli review "$PLAN"')).toMatch(/column_added region_code/)
    expect(by('pcli review "$PLAN" --approve')).toMatch(/approved by human/)
    expect(by('pcli apply "$PLAN"')).toMatch(/success   stg_customers/)
    // The product downstream rebuilt, so its freshness was checked again.
    expect(by('pcli apply "$PLAN"')).toMatch(/freshness revenue_by_region {2}fresh \(warning\)/)
    const audit = by("pcli audit")
    expect(audit).toMatch(/agent\(unnamed\)\s+apply\s+stg_customers\s+deny\s+0\s+-\s+refused \[run-needs-plan\]/)
    expect(audit).toMatch(/human\(unnamed\)\s+-\s+-\s+allow\s+-\s+[0-9a-f]{12}…\s+plan approved by/)
  })
})
