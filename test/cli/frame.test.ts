import { Effect, Either } from "effect"
import { spawn } from "node:child_process"
import { describe, expect, it } from "vitest"
import { readCommandLine } from "../../src/cli/argv"
import { allNodes } from "../../src/cli/commandTree"
import { rootTree } from "../../src/cli/root"
import { mcpPrincipal } from "../../src/services/Principal/Principal"
import { type CliResult, makeProject, PCLI_BIN, runCli } from "../support/cli"

const project = () => makeProject({ "pcli.toml": `[adapter.local]\ntype = "embedded"\n` })

/** Runs command lines four at a time (the machine is shared). */
const runAll = async (lines: ReadonlyArray<ReadonlyArray<string>>, cwd: string, env?: Record<string, string>) => {
  const out: Array<CliResult> = []
  for (let i = 0; i < lines.length; i += 4) out.push(...(await Promise.all(lines.slice(i, i + 4).map((args) => runCli(args, { cwd, env })))))
  return out
}

/** A usage error as the issue asks for it: exit 2, exactly one stderr line, no control characters. */
const expectUsageLine = (r: CliResult, message: string | RegExp) => {
  expect(r.code).toBe(2)
  const lines = r.stderr.split("\n")
  expect(lines).toHaveLength(2)
  expect(lines[1]).toBe("")
  if (typeof message === "string") expect(lines[0]).toBe(`error[usage]: ${message}`)
  else expect(lines[0]).toMatch(message)
  // eslint-disable-next-line no-control-regex
  expect(lines[0]).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/)
}

const tree = rootTree()
const paths = allNodes(tree).map((n) => n.path)

describe("pcli command line (binary)", () => {
  it("refuses reserved principal ids from the flag and the environment (principal-id-reserved, exit 1)", async () => {
    const cwd = project()
    const lines = [
      ["validate", "--principal-id", "unnamed"],
      ["validate", "--principal-id", "unrecorded"],
      ["validate", "--principal-id", "mcp-default"],
      ["validate", "--output", "json", "--principal-id", "mcp-"]
    ]
    const [unnamed, unrecorded, mcp, json] = await runAll(lines, cwd)
    for (const r of [unnamed, unrecorded, mcp]) {
      expect(r!.code).toBe(1)
      expect(r!.stderr).toMatch(/^error\[principal-id-reserved\]: --principal-id "[a-z-]+" is reserved/)
      expect(r!.stderr.split("\n")).toHaveLength(2)
    }
    expect(json!.code).toBe(1)
    expect(JSON.parse(json!.stdout).error.code).toBe("principal-id-reserved")
    const env = await runCli(["validate"], { cwd, env: { PCLI_PRINCIPAL_ID: "mcp-ci" } })
    expect(env.code).toBe(1)
    expect(env.stderr).toMatch(/^error\[principal-id-reserved\]: PCLI_PRINCIPAL_ID "mcp-ci" is reserved/)
    // Close to reserved is fine, and the default `unnamed` still applies when nothing is given.
    const ok = await runAll([["validate", "--principal-id", "unnamed2"], ["validate", "--principal-id", "my-mcp-bot"], ["validate"]], cwd)
    expect(ok.map((r) => r.code)).toEqual([0, 0, 0])
  })

  it("the MCP server's principal is agent mcp-<profile> with source mcp_profile, whatever PCLI_PRINCIPAL says", async () => {
    const p = await Effect.runPromise(mcpPrincipal("analytics"))
    expect(p).toEqual({ class: "agent", id: "mcp-analytics", source: "mcp_profile" })
    for (const bad of ["Has Spaces", "", "x".repeat(60)]) {
      const r = await Effect.runPromise(Effect.either(mcpPrincipal(bad)))
      expect(Either.isLeft(r) && r.left._tag).toBe("InvalidPrincipalId")
    }
    // PCLI_PRINCIPAL=human cannot turn the server into a human: the binary refuses nothing and the id stays agent.
    const human = await runCli(["mcp", "--profile", "Bad Name"], { cwd: project(), env: { PCLI_PRINCIPAL: "human" } })
    expect(human.code).toBe(1)
    expect(human.stderr).toMatch(/^error\[invalid-principal-id\]: --profile must match/)
  })

  it("accepts global flags before the command, between its words and after it, alike", async () => {
    const cwd = project()
    const [after, before, between, equals] = await runAll(
      [
        ["policy", "show", "--output", "json"],
        ["--output", "json", "policy", "show"],
        ["policy", "--output", "json", "show"],
        ["--output=json", "--principal-id", "ci-bot", "state", "info"]
      ],
      cwd
    )
    // --config given before the command, from a directory with no pcli.toml of its own.
    const config = await runCli(["--config", `${cwd}/pcli.toml`, "--output", "json", "validate"], { cwd: makeProject() })
    expect(after!.code).toBe(0)
    expect(before!.stdout).toBe(after!.stdout)
    expect(between!.stdout).toBe(after!.stdout)
    expect(JSON.parse(equals!.stdout).command).toBe("state_info")
    expect(config.code).toBe(0)
    expect(JSON.parse(config.stdout)).toMatchObject({ command: "validate", ok: true, config_path: `${cwd}/pcli.toml` })
  })

  it("every usage error is one line `error[usage]: …`, exit 2, worded for what went wrong", async () => {
    const cwd = project()
    const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string | RegExp]> = [
      [["run", "--model"], "--model needs a value"],
      [["run", "--model", "--output", "json"], "--model needs a value"],
      [["validate", "--config="], "--config needs a value"],
      [["--config", "validate"], "--config needs a value"],
      [["validate", "--output", "json", "--output", "text"], "--output given twice"],
      [["--output", "json", "validate", "--output", "json"], "--output given twice"],
      [["validate", "--modles", "x"], "unknown flag --modles (did you mean --models?)"],
      [["--outptu", "json", "validate"], "unknown flag --outptu (did you mean --output?)"],
      [["validate", "--bogus"], "unknown flag --bogus"],
      [["valdate"], "unknown command 'valdate' (did you mean validate?)"],
      [["policy", "chek"], "unknown command 'policy chek' (did you mean check?)"],
      [["--output", "json"], "pcli needs a command: validate, compile, run, playground, ls, lineage, test, history, show, plan, review, apply, rollback, backfill, gc, restore, discover, policy, product, branch, state, audit, brief, mcp, serve, docs"],
      [["policy", "--output", "json"], "pcli policy needs a command: check, test, show, freeze, unfreeze, replay"],
      [["policy", "check", "--principal", "agent", "--capability", "apply"], "missing --model"],
      [["validate", "extra"], "unexpected argument 'extra'"],
      [["playground"], "missing argument <dir>"]
    ]
    const results = await runAll(
      cases.map(([args]) => args),
      cwd
    )
    results.forEach((r, i) => expectUsageLine(r, cases[i]![1]))
    const json = await runCli(["--output", "json", "run", "--model"], { cwd })
    expectUsageLine(json, "--model needs a value")
    expect(JSON.parse(json.stdout)).toEqual({ error: { code: "usage", message: "--model needs a value" } })
  })

  it("a malformed value is a bad value, not a usage error: exit 1 with the flag's code, named with the right article", async () => {
    const cwd = project()
    const [integer, choice] = await runAll([["history", "--last", "abc"], ["validate", "--output", "xml"]], cwd)
    expect([integer!.code, integer!.stderr]).toEqual([1, "error[invalid-last]: --last must be an integer, got 'abc'\n"])
    expect(integer!.stderr).not.toContain("a integer")
    expect([choice!.code, choice!.stderr]).toEqual([1, "error[invalid-output]: --output must be one of text, json, got 'xml'\n"])
  })

  it("control characters and very long values in arguments are never echoed raw", async () => {
    const cwd = project()
    const esc = "\u001b[31mred\u001b[0m\u0007\r"
    const long = "x".repeat(100_000)
    const results = await runAll(
      [
        ["validate", `--${esc}`],
        [`nosuch${esc}`],
        ["validate", "--output", esc],
        ["validate", "--output", long],
        ["validate", "--config", `/nonexistent/${esc}.toml`],
        ["policy", "check", "--principal", "agent", "--capability", "apply", "--model", `m${esc}`]
      ],
      cwd
    )
    for (const r of results) {
      expect(r.code).not.toBe(0)
      expect(r.stderr.split("\n")).toHaveLength(2)
      expect(r.stderr).toMatch(/^error\[[a-z-]+\]: /)
      // eslint-disable-next-line no-control-regex
      expect(r.stderr.trimEnd()).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/)
      expect(r.stderr.length).toBeLessThan(2_000)
    }
    expect(results[3]!.stderr).toContain("…")
  })

  it("--help at every command path: pcli <path> usage, [ ] for optional flags, no filler, one example", async () => {
    const cwd = project()
    const results = await runAll(
      paths.map((p) => [...p, "--help"]),
      cwd
    )
    results.forEach((r, i) => {
      const path = paths[i]!
      expect(r.code, path.join(" ")).toBe(0)
      expect(r.stderr).toBe("")
      expect(r.stdout).not.toMatch(/A user-defined piece of text|This setting is optional|\u001b\[/)
      expect(r.stdout).toContain(`\nUSAGE\n  ${["pcli", ...path].join(" ")} `)
      expect(r.stdout).toMatch(/\nEXAMPLE\n {2}pcli /)
      // The first line is `pcli <path>: <one-line summary>`.
      expect(r.stdout.split("\n")[0]).toMatch(path.length === 0 ? /^pcli \S+: \S.{10,}$/ : new RegExp(`^pcli ${path.join(" ")}: \\S.{10,}$`))
    })
    const byPath = (p: string) => results[paths.findIndex((x) => x.join(" ") === p)]!.stdout
    expect(byPath("")).toMatch(/policy check\s+Read-only: explain/)
    expect(byPath("run")).toContain("pcli run [--model <text>]... [--select <text>]... [--from <text>]")
    expect(byPath("run")).toContain("partial failure")
    expect(byPath("policy check")).toContain("pcli policy check --principal <text> --capability <text> --model <text> [global flags]")
    expect(byPath("playground")).toMatch(/ARGUMENTS\n {2}<dir>\s+Directory to create/)
    expect(byPath("validate")).toContain("product specs in products/")
    // -h and --help anywhere after the command mean the same.
    const [short, late] = await runAll([["policy", "check", "-h"], ["run", "--model", "a", "--help"]], cwd)
    expect(short!.stdout).toBe(byPath("policy check"))
    expect(late!.stdout).toBe(byPath("run"))
  })

  it("a reader that closes stdout early ends the process quietly with its usual exit code", async () => {
    const cwd = project()
    const closedEarly = (args: ReadonlyArray<string>) =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [PCLI_BIN, ...args], { cwd, stdio: ["ignore", "pipe", "pipe"] })
        child.stdout.destroy()
        let stderr = ""
        child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d))
        child.on("close", (code) => resolve({ code, stderr }))
      })
    const results = await Promise.all([closedEarly(["validate", "--output", "json"]), closedEarly(["validate", "--help"]), closedEarly(["--bogus", "--output", "json"])])
    expect(results.map((r) => r.code)).toEqual([0, 0, 2])
    expect(results.map((r) => r.stderr)).toEqual(["", "", "error[usage]: unknown flag --bogus\n"])
  })
})

describe("argv reader", () => {
  it("every command has a one-line summary and an example that parses as a command line", () => {
    for (const node of allNodes(tree)) {
      const help = node.help()
      expect(help.summary, node.path.join(" ")).toMatch(/^\S[^\n]{10,160}$/)
      expect(help.examples, node.path.join(" ")).toHaveLength(1)
      // The example's first pcli command line (shell words; quotes kept together).
      const example = help.examples[0]!.split("&&")[0]!.trim()
      const words = [...example.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!)
      expect(words[0]).toBe("pcli")
      expect(readCommandLine(tree, words.slice(1))._tag, example).toBe("Run")
    }
  })

  it("moves global flags given before the command to after it", () => {
    expect(readCommandLine(tree, ["--output=json", "--config", "a.toml", "policy", "--models", "m", "show", "--state-path", "s"])).toEqual({
      _tag: "Run",
      argv: ["policy", "show", "--output=json", "--config", "a.toml", "--models", "m", "--state-path", "s"]
    })
    // @effect/cli's own --version needs no command; values that look like flags but are not known stay values.
    expect(readCommandLine(tree, ["--version"])).toEqual({ _tag: "Run", argv: ["--version"] })
    expect(readCommandLine(tree, ["policy", "freeze", "--reason", "-x", "--scope=any"])._tag).toBe("Run")
  })
})
