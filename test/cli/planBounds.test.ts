// Plans and markers are files an agent may write (decisions.md 33): one nested 10,000 levels deep
// is refused with its own code before anything recursive reads it, never `internal` with a stack.
import { readdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { makeProject, runCli } from "../support/cli"

const deep = `${"[".repeat(10_000)}${"]".repeat(10_000)}`
const agent = { PCLI_PRINCIPAL: "agent", PCLI_PRINCIPAL_ID: "bot-1" }
let cwd: string
let planId: string

beforeAll(async () => {
  cwd = makeProject({
    "pcli.toml": `[adapter.local]\ntype = "embedded"\n\n[policy]\nversion = 1\ndefault_agent_effect = "require_review"\n`,
    "models/a.sql": "SELECT 1 AS id",
    "models/a.toml": `name = "a"\n[target]\ncatalog = "w"\nschema = "s"\ntable = "a"\n`
  })
  // An escalation plan: the queue lists it and reads its marker.
  const planned = await runCli(["plan", "--output", "json"], { cwd, env: agent })
  expect(planned.code, planned.stderr).toBe(0)
  planId = JSON.parse(planned.stdout).plan_id
})

const plansDir = () => join(cwd, ".pcli", "plans")
const oneLine = (stderr: string, code: string) => {
  expect(stderr.trimEnd().split("\n")).toHaveLength(1)
  expect(stderr).toMatch(new RegExp(`^error\\[${code}\\]: .*nested more than 64 levels deep`))
  expect(stderr).not.toMatch(/Maximum call stack|\bat .*pcli\.cjs/)
}

describe("plans and markers nested 10,000 deep", () => {
  it("a marker whose plan_id is nested 10,000 deep is marker-unparseable: exit 1, one line; the queue lists the plan as invalid", async () => {
    writeFileSync(join(plansDir(), `${planId}.reviewed.json`), `{"plan_id":${deep}}`)
    const status = await runCli(["review", planId, "--status"], { cwd })
    expect(status.code).toBe(1)
    oneLine(status.stderr, "marker-unparseable")
    const queue = await runCli(["review", "--queue", "--output", "json"], { cwd })
    expect(queue.code, queue.stderr).toBe(0)
    expect(JSON.parse(queue.stdout).pending).toMatchObject([{ plan_id: planId, marker: "invalid" }])
  })

  it("a plan whose payload is nested 10,000 deep is plan-integrity: exit 1, one line; the queue notes it by its code and still answers", async () => {
    const bad = "f".repeat(64)
    writeFileSync(
      join(plansDir(), `${bad}.json`),
      `{"plan_id":"${bad}","format_version":1,"kind":"escalation","created_at":"2026-01-01T00:00:00.000Z","principal":{"class":"agent","id":"bot-1","source":"env"},"payload":{"models":${deep}}}`
    )
    const status = await runCli(["review", bad, "--status"], { cwd })
    expect(status.code).toBe(1)
    oneLine(status.stderr, "plan-integrity")
    const applied = await runCli(["apply", bad], { cwd })
    expect(applied.code).toBe(1)
    oneLine(applied.stderr, "plan-integrity")
    const queue = await runCli(["review", "--queue"], { cwd })
    expect(queue.code, queue.stderr).toBe(0)
    expect(queue.stderr + queue.stdout).toMatch(new RegExp(`not listed \\(plan-integrity\\): plan ${bad} failed its integrity check`))
    expect(queue.stderr + queue.stdout).not.toMatch(/Maximum call stack|internal/)
    expect(readdirSync(plansDir())).toContain(`${bad}.json`)
  })
})
