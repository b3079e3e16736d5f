// The exit-code rule through the binary (decisions.md item 2): a malformed flag value exits 1 with
// a code of its own, on every command that takes a valued flag; unknown flags, conflicts and a flag
// missing its partner exit 2 with error[usage]. One playground serves the whole file.
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runCli } from "../support/cli"

/** Every valued flag's malformed value, command by command (from the command tree in src/cli), with the code it must carry. */
const malformedValues: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
  [["history", "--last", "0"], "invalid-last"],
  [["history", "--last", "-3"], "invalid-last"],
  [["history", "--last", "ten"], "invalid-last"],
  [["brief", "--since", "1h"], "invalid-since"],
  [["audit", "--since", "yesterday"], "invalid-since"],
  [["audit", "--limit", "0"], "invalid-limit"],
  [["audit", "--limit", "1001"], "invalid-limit"],
  [["audit", "--limit", "abc"], "invalid-limit"],
  [["audit", "--limit", "5", "--cursor", "zz"], "invalid-cursor"],
  [["audit", "--effect", "maybe"], "invalid-effect"],
  [["audit", "--actor", "BAD!"], "invalid-principal-id"],
  [["audit", "--scorecard", "--by", "team"], "invalid-by"],
  [["audit", "--scorecard", "--window", "bogus"], "invalid-since"],
  [["audit", "--verify", "--expect-head", "nope"], "invalid-expect-head"],
  [["policy", "check", "--principal", "robot", "--capability", "run", "--model", "stg_orders"], "invalid-principal"],
  [["policy", "check", "--principal", "agent", "--capability", "fly", "--model", "stg_orders"], "invalid-capability"],
  [["policy", "freeze", "--principal", "robot", "--scope", "any", "--reason", "x"], "invalid-principal"],
  [["policy", "freeze", "--principal", "human", "--scope", "bogus=", "--reason", "x"], "invalid-selector"],
  [["policy", "unfreeze", "--principal", "robot", "--scope", "any", "--reason", "x"], "invalid-principal"],
  [["policy", "replay", "--config", "pcli.toml", "--since", "yesterday"], "invalid-since"],
  [["run", "--from", "garbage", "--to", "2026-01-02"], "invalid-partition-window"],
  [["run", "--from", "2026-01-05", "--to", "2026-01-02"], "invalid-partition-window"],
  [["backfill", "--model", "mart_daily_revenue", "--from", "garbage", "--to", "2026-01-02"], "invalid-partition-window"],
  [["backfill", "--model", "mart_daily_revenue", "--from", "2026-01-05", "--to", "2026-01-02"], "invalid-partition-window"],
  [["run", "--select", "tag:"], "selector-invalid"],
  [["ls", "--select", "+"], "selector-invalid"],
  [["test", "--select", "+"], "selector-invalid"],
  [["plan", "--select", "+"], "selector-invalid"],
  [["lineage", "stg_orders", "--depth", "0"], "depth-invalid"],
  [["lineage", "stg_orders", "--depth", "two"], "depth-invalid"],
  [["gc", "--derivable", "--min-age-days", "-1"], "invalid-min-age-days"],
  [["gc", "--derivable", "--min-age-days", "week"], "invalid-min-age-days"],
  [["serve", "--port", "70000"], "invalid-port"],
  [["serve", "--port", "eighty"], "invalid-port"],
  [["mcp", "--profile", "BAD!"], "invalid-principal-id"],
  [["branch", "create", "Bad-Name"], "invalid-branch-name"],
  [["state", "migrate", "--to", "nope"], "invalid-state-url"],
  [["docs", "reference", "--format", "yaml"], "invalid-format"],
  [["docs", "reference", "--document", "readme"], "invalid-document"],
  [["history", "--output", "xml"], "invalid-output"],
  [["--output", "xml", "ls"], "invalid-output"],
  [["ls", "--principal-id", "Not Valid"], "invalid-principal-id"]
]

/** Usage errors: an unknown flag, flags that conflict, a flag missing its partner, a flag missing its value. */
const usageErrors: ReadonlyArray<ReadonlyArray<string>> = [
  ["history", "--bogus"],
  ["audit", "--verify", "--limit", "3"],
  ["audit", "--cursor", "5"],
  ["audit", "--by", "rule"],
  ["audit", "--model", "stg_orders", "--product", "x"],
  ["run", "--from", "2026-01-01"],
  ["backfill", "--to", "2026-01-01"],
  ["lineage", "stg_orders", "--upstream", "--downstream"],
  ["history", "--last"],
  ["policy", "check", "--principal", "robot"]
]

let scratch: string
let project: string

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), "pcli-exit-"))
  expect((await runCli(["playground", "demo"], { cwd: scratch })).code).toBe(0)
  project = join(scratch, "demo")
}, 120_000)
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

/** Runs the cases a few at a time: the binary is the slow part, and the machine is shared. */
const inBatches = async <A, B>(items: ReadonlyArray<A>, f: (a: A) => Promise<B>, size = 4): Promise<Array<B>> => {
  const out: Array<B> = []
  for (let i = 0; i < items.length; i += size) out.push(...(await Promise.all(items.slice(i, i + size).map(f))))
  return out
}

describe("exit codes for flags", () => {
  it("a malformed flag value exits 1 with its own code on every command, text and JSON alike", async () => {
    const seen = await inBatches(malformedValues, async ([args, code]) => {
      const r = await runCli(args, { cwd: project })
      return { line: args.join(" "), exit: r.code, stderr: r.stderr, want: code }
    })
    const wrong = seen.filter((s) => s.exit !== 1 || !s.stderr.startsWith(`error[${s.want}]: `) || s.stderr.split("\n").length !== 2)
    expect(wrong.map((s) => `${s.line} → ${s.exit} ${s.stderr}`)).toEqual([])
    const asJson = await runCli(["history", "--last", "0", "--output", "json"], { cwd: project })
    expect(asJson.code).toBe(1)
    expect(JSON.parse(asJson.stdout)).toEqual({ error: { code: "invalid-last", message: "--last must be a positive integer, got 0" } })
  }, 120_000)

  it("unknown flags, conflicts and a flag missing its partner exit 2 with error[usage]", async () => {
    const seen = await inBatches(usageErrors, async (args) => ({ line: args.join(" "), ...(await runCli(args, { cwd: project })) }))
    const wrong = seen.filter((s) => s.code !== 2 || !s.stderr.startsWith("error[usage]: "))
    expect(wrong.map((s) => `${s.line} → ${s.code} ${s.stderr}`)).toEqual([])
  }, 120_000)

  it("the root help states the rule", async () => {
    const r = await runCli(["--help"], { cwd: project })
    expect(r.code).toBe(0)
    expect(r.stdout).toContain("1 a runtime error, a refusal, or a malformed flag value (error[invalid-<flag>]")
    expect(r.stdout).toContain("2 a usage error: an unknown flag, flags that conflict, a flag missing its partner (error[usage])")
  })
})
