import { spawnSync } from "node:child_process"
import { writeFileSync } from "node:fs"
import { open } from "node:fs/promises"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { makeProject, runCli } from "../support/cli"
import { agent, human, layeredSidecar, projectCli } from "./support"

// Decision 33: the last build is the record an agent cannot edit, so a build records the files it
// compiled. Read when the build ends, an edit the agent makes meanwhile would become that record.

// Agents may rebuild anything; a breaking change needs review (bronzePolicy's bare `apply` allow would cover breaking changes too).
const POLICY = `[policy]
version = 1
default_agent_effect = "require_review"

[[policy.rules]]
principal = "agent"
capability = "apply"
effect = "allow"
scope = "any"

[[policy.rules]]
principal = "agent"
capability = "schema_change.breaking"
effect = "require_review"
scope = "any"
`
const contract = (nullable: boolean) => `[[columns]]\nname = "id"\ntype = "INTEGER"\nnullable = ${nullable}\n`

describe("a build records the files it compiled, not the files as they are when it ends", () => {
  it("a contract loosened while a human's run is under way is still breaking (column_nullability_loosened) for the agent's next run", async () => {
    const cwd = makeProject({
      "pcli.toml": `[project]\nname = "record"\n[adapter.local]\ntype = "embedded"\n${POLICY}`,
      "models/orders.sql": "SELECT 1 AS id",
      "models/orders.toml": layeredSidecar("orders", "bronze"),
      "models/orders.contract.toml": contract(false)
    })
    const { json, rowsOf } = projectCli(() => cwd)
    const fifo = join(cwd, "run-compiled.fifo")
    expect(spawnSync("mkfifo", [fifo]).status).toBe(0)
    const humanRun = runCli(["run"], { cwd, env: { ...human, PCLI_TEST_PAUSE_AT: `run-compiled:${fifo}` } })
    // Opening the FIFO returns once the run holds at the point, its project compiled; closing it lets the run go on.
    const barrier = await open(fifo, "w")
    writeFileSync(join(cwd, "models/orders.contract.toml"), contract(true))
    await barrier.close()
    const ran = await humanRun
    expect(ran.code, ran.stderr).toBe(0)

    const { result, rows } = await rowsOf(() => json(["run", "--model", "orders"], agent))
    expect([result.code, result.out.error?.code], result.stderr).toEqual([1, "run-needs-plan"])
    expect(rows.map((r) => [r.model, r.capability, r.effect, r.rule_id])).toEqual([["orders", "schema_change.breaking", "require_review", 1]])
    expect(String(rows[0]!["reason"])).toContain("column_nullability_loosened")
  })
})
