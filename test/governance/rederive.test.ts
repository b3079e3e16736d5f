import { execFileSync } from "node:child_process"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { planIdOf } from "../../src/services/Plans/ids"
import { fingerprintOf } from "../../src/services/Plans/revisions"
import { makeProject } from "../support/cli"
import { commitAll } from "../support/mcpClient"
import { agent, bronzePolicy, human, layeredSidecar, projectCli } from "./support"

// Issue 32 item 3: apply derives the plan again from the working tree; the file's claims count for nothing.
const POLICY = bronzePolicy("schema_change.additive")

const sidecar = (name: string) => layeredSidecar(name, "bronze")

let cwd: string
const { json, ledger } = projectCli(() => cwd)
const planFile = (id: string) => join(cwd, ".pcli", "plans", `${id}.json`)

/** What an attacker does: edit the payload, recompute the id the way pcli does, store it under the new id. */
const forge = (id: string, edit: (plan: { kind: string; payload: Record<string, unknown> }) => void): string => {
  const stored = JSON.parse(readFileSync(planFile(id), "utf8"))
  edit(stored)
  stored.plan_id = planIdOf(stored.kind, stored.payload)
  writeFileSync(planFile(stored.plan_id), JSON.stringify(stored, null, 2))
  return stored.plan_id
}

/** A marker for the forged id, copied from the real one (the marker file alone is what apply reads today). */
const forgeMarker = (approved: string, forged: string) => {
  const marker = JSON.parse(readFileSync(join(cwd, ".pcli", "plans", `${approved}.reviewed.json`), "utf8"))
  writeFileSync(join(cwd, ".pcli", "plans", `${forged}.reviewed.json`), JSON.stringify({ ...marker, plan_id: forged }, null, 2))
}

beforeAll(() => {
  cwd = makeProject({
    "pcli.toml": `[adapter.local]\ntype = "embedded"\n\n${POLICY}`,
    ".gitignore": ".pcli/\nmodels/.pcli-state.sqlite*\n",
    "models/bronze_orders.sql": "SELECT 1 AS id, 'x' AS note",
    "models/bronze_orders.toml": sidecar("bronze_orders"),
    "models/bronze_totals.sql": "SELECT id FROM w.bronze.bronze_orders",
    "models/bronze_totals.toml": sidecar("bronze_totals")
  })
  commitAll(cwd)
})

describe("apply re-derives the plan from the working tree (issue 32 item 3)", () => {
  it("a run plan claiming a false change class is plan-stale naming the model; nothing is built", async () => {
    // The agent drops a column: breaking, so its plan escalates.
    writeFileSync(join(cwd, "models/bronze_orders.sql"), "SELECT 1 AS id")
    const plan = await json(["plan", "--base", "HEAD"], agent)
    expect(plan.code, plan.stderr).toBe(0)
    expect(plan.out).toMatchObject({ kind: "escalation", changes: [{ model: "bronze_orders", change_class: "schema_change.breaking" }] })

    const forged = forge(plan.out.plan_id, (p) => {
      p.kind = "run"
      const changes = p.payload["changes"] as Array<Record<string, unknown>>
      changes[0]!["change_class"] = "schema_change.additive"
      changes[0]!["findings"] = [{ kind: "column_added", column: "extra" }]
    })
    const before = (await ledger()).length
    const applied = await json(["apply", forged], agent)
    expect(applied.code).toBe(1)
    expect(applied.out.error.code).toBe("plan-stale")
    expect(applied.out.error.message).toContain("bronze_orders")
    const rows = (await ledger()).slice(before)
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatchObject({ plan_id: forged, effect: null })
    expect(String(rows[0]!["reason"])).toContain("[plan-stale]")
    expect(existsSync(join(cwd, ".pcli/warehouse.duckdb"))).toBe(false)
    execFileSync("git", ["checkout", "--", "models/bronze_orders.sql"], { cwd })
  })

  it("an approved backfill re-hashed without fingerprints is plan-integrity; one re-hashed with a widened model set is plan-stale", async () => {
    const plan = await json(["backfill", "--model", "bronze_orders", "--no-downstream"], human)
    expect(plan.code, plan.stderr).toBe(0)
    const approved = await json(["review", plan.out.plan_id, "--approve"], human)
    expect(approved.code, approved.stderr).toBe(0)

    const bare = forge(plan.out.plan_id, (p) => delete p.payload["fingerprints"])
    forgeMarker(plan.out.plan_id, bare)
    writeFileSync(join(cwd, "models/bronze_orders.sql"), "SELECT 666 AS id, 'edited' AS note")
    const integrity = await json(["apply", bare], human)
    expect(integrity.code).toBe(1)
    expect(integrity.out.error.code).toBe("plan-integrity")
    expect(integrity.out.error.message).toContain("fingerprints")
    execFileSync("git", ["checkout", "--", "models/bronze_orders.sql"], { cwd })

    // Fingerprints recomputed too, but a model the seeds' closure does not reach is slipped in.
    const widened = forge(plan.out.plan_id, (p) => {
      const fingerprints = p.payload["fingerprints"] as Record<string, string | null>
      p.payload["models"] = ["bronze_orders", "bronze_totals"]
      p.payload["execution_layers"] = [["bronze_orders"], ["bronze_totals"]]
      const file = (ext: string) => readFileSync(join(cwd, "models", `bronze_totals${ext}`), "utf8")
      fingerprints["bronze_totals"] = fingerprintOf({ sql: file(".sql"), sidecar: file(".toml"), contract: null })
    })
    forgeMarker(plan.out.plan_id, widened)
    const stale = await json(["apply", widened], human)
    expect(stale.code).toBe(1)
    expect(stale.out.error.code).toBe("plan-stale")
    expect(stale.out.error.message).toContain("bronze_totals")
    expect(existsSync(join(cwd, ".pcli/warehouse.duckdb"))).toBe(false)
  })
})
