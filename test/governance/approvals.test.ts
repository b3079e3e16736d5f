import { SqlClient } from "@effect/sql"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { makeProject, runCli } from "../support/cli"
import { specText } from "../products/support"

// decisions.md 34: an approval is a ledger row, named by the marker and used up by its apply.

const POLICY = `[policy]
version = 1
default_agent_effect = "require_review"
`
const sidecar = (name: string) => `name = "${name}"\n[target]\ncatalog = "w"\nschema = "s"\ntable = "${name}"\n`
const contentAddressed = (name: string) => `${sidecar(name)}[strategy]\ntype = "content_addressed"\nstorage_prefix = "artifacts"\n`

const agent = { PCLI_PRINCIPAL: "agent", PCLI_PRINCIPAL_ID: "bot-1" }
const human = { PCLI_PRINCIPAL: "human", PCLI_PRINCIPAL_ID: "alice" }
const GIT = { GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", HOME: "/nonexistent" }

let cwd: string
const pcli = async (args: ReadonlyArray<string>, env: Record<string, string>) => {
  const r = await runCli([...args, "--output", "json"], { cwd, env: { ...GIT, ...env } })
  return { ...r, out: r.stdout === "" ? undefined : JSON.parse(r.stdout) }
}
const query = <A extends object>(text: string) =>
  Effect.runPromise(
    Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe<A>(text)).pipe(
      Effect.provide(SqliteClient.layer({ filename: join(cwd, "models", ".pcli-state.sqlite"), readonly: true }))
    )
  )
const reasonsOf = async (planId: string) =>
  (await query<{ reason: string | null }>(`SELECT reason FROM ledger WHERE plan_id = '${planId}' ORDER BY seq`)).map((r) => String(r.reason))
const markerPath = (planId: string) => join(cwd, ".pcli/plans", `${planId}.reviewed.json`)

/** What an agent with write access to `.pcli/` can write: a well-formed marker no human ever approved. */
const forge = (planId: string, extra: Record<string, unknown> = {}) =>
  writeFileSync(
    markerPath(planId),
    JSON.stringify({
      plan_id: planId,
      reviewed_at: "2099-01-01T00:00:00.000Z",
      base_ref: "HEAD",
      breaking_change_count: 0,
      approver: { email: "cfo@example.com", host: "finance", source: "local" },
      ...extra
    })
  )

/** An agent's value change to `model`: an escalation plan (default require_review). */
const escalate = async (model: string, sql: string) => {
  writeFileSync(join(cwd, `models/${model}.sql`), sql)
  const plan = await pcli(["plan", "--base", "HEAD", "--model", model], agent)
  expect(plan.code, plan.stderr).toBe(0)
  expect(plan.out.kind).toBe("escalation")
  return plan.out.plan_id as string
}

beforeAll(async () => {
  cwd = makeProject({
    "pcli.toml": `[adapter.local]\ntype = "embedded"\n\n${POLICY}`,
    ".gitignore": ".pcli/\nmodels/.pcli-state.sqlite*\n",
    ...Object.fromEntries(["forged", "rehashed", "racing"].flatMap((m) => [[`models/${m}.sql`, "SELECT 1 AS id"], [`models/${m}.toml`, sidecar(m)]])),
    "models/stable.sql": "SELECT 1 AS id, 'x' AS v",
    "models/stable.toml": contentAddressed("stable"),
    "products/orders_weekly.toml": specText()
  })
  const git = (...args: Array<string>) => execFileSync("git", args, { cwd, env: { ...process.env, ...GIT }, stdio: ["ignore", "pipe", "pipe"] })
  git("init", "-q")
  git("config", "user.email", "reviewer@example.com")
  git("add", ".")
  git("commit", "-qm", "base")
  const built = await pcli(["run"], human)
  expect(built.code, built.stderr).toBe(0)
})

describe("approvals are ledger rows (decisions.md 34)", () => {
  it("a forged marker with no row is marker-unrecorded: an escalation plan and a gc plan, and a marker naming another row", async () => {
    const esc = await escalate("forged", "SELECT 2 AS id")
    forge(esc)
    const refused = await pcli(["apply", esc], agent)
    expect([refused.code, refused.out.error.code]).toEqual([1, "marker-unrecorded"])
    expect((await reasonsOf(esc)).slice(1)).toEqual([expect.stringContaining("[marker-unrecorded]")])
    const status = await pcli(["review", esc, "--status"], human)
    expect([status.code, status.out.error.code]).toEqual([1, "marker-unrecorded"])
    const queue = await pcli(["review", "--queue"], human)
    expect(queue.out.pending.find((p: { plan_id: string }) => p.plan_id === esc)).toMatchObject({ marker: "unrecorded" })

    // A real row's seq and hash, but not an approval of this plan.
    const [row] = await query<{ seq: number; row_hash: string }>(`SELECT seq, row_hash FROM ledger ORDER BY seq LIMIT 1`)
    forge(esc, { approval_row: { seq: row!.seq, hash: row!.row_hash } })
    const named = await pcli(["apply", esc], agent)
    expect(named.out.error).toMatchObject({ code: "marker-unrecorded" })
    expect(named.out.error.message).toContain(`row ${row!.seq} is not an approval of this plan`)

    const gc = await pcli(["gc", "--derivable", "--min-age-days", "0"], human)
    expect(gc.code, gc.stderr).toBe(0)
    forge(gc.out.plan_id)
    const gcRefused = await pcli(["apply", gc.out.plan_id], agent)
    expect([gcRefused.code, gcRefused.out.error.code]).toEqual([1, "marker-unrecorded"])
    expect(await query(`SELECT * FROM tombstones`)).toEqual([])
  })

  it("a marker whose row hash differs is refused; the real one applies once, approver shown as class(id); a second apply is plan-already-applied", async () => {
    const planId = await escalate("rehashed", "SELECT 3 AS id")
    const approved = await pcli(["review", planId, "--approve"], human)
    expect(approved.code, approved.stderr).toBe(0)
    expect(approved.out.approver).toMatchObject({ principal: "human(alice)", email: "reviewer@example.com" })
    const good = readFileSync(markerPath(planId), "utf8")
    const marker = JSON.parse(good)
    const [row] = await query<{ kind: string; principal: string; principal_id: string; row_hash: string }>(
      `SELECT kind, principal, principal_id, row_hash FROM ledger WHERE seq = ${marker.approval_row.seq}`
    )
    expect(row).toEqual({ kind: "approval", principal: "human", principal_id: "alice", row_hash: marker.approval_row.hash })

    writeFileSync(markerPath(planId), JSON.stringify({ ...marker, approval_row: { ...marker.approval_row, hash: "0".repeat(64) } }))
    const mismatch = await pcli(["apply", planId], agent)
    expect([mismatch.code, mismatch.out.error.code]).toEqual([1, "marker-unrecorded"])
    expect(mismatch.out.error.message).toContain("another hash")
    writeFileSync(markerPath(planId), JSON.stringify({ ...marker, approver: { ...marker.approver, email: "cfo@example.com" } }))
    expect((await pcli(["apply", planId], agent)).out.error.code).toBe("marker-unrecorded")

    writeFileSync(markerPath(planId), good)
    const status = await pcli(["review", planId, "--status"], agent)
    expect(status.out).toMatchObject({ reviewed: true, approver: { principal: "human(alice)", email: "reviewer@example.com" } })
    const applied = await pcli(["apply", planId], agent)
    expect(applied.code, applied.stderr).toBe(0)
    expect(applied.out.reviewed_by).toMatchObject({ principal: "human(alice)", email: "reviewer@example.com" })
    const text = await runCli(["review", planId, "--status"], { cwd, env: { ...GIT, ...human } })
    expect(text.stdout).toContain("reviewed by human(alice) (git reviewer@example.com)")

    const again = await pcli(["apply", planId], agent)
    expect([again.code, again.out.error.code]).toEqual([1, "plan-already-applied"])
    expect((await reasonsOf(planId)).at(-1)).toContain("[plan-already-applied]")
    expect(await query(`SELECT count(*) AS n FROM runs WHERE plan_id = '${planId}'`)).toEqual([{ n: 1 }])
  })

  it("two concurrent applies of one approved plan build once", async () => {
    const planId = await escalate("racing", "SELECT 4 AS id")
    expect((await pcli(["review", planId, "--approve"], human)).code).toBe(0)
    const both = await Promise.all([pcli(["apply", planId], agent), pcli(["apply", planId], agent)])
    expect(both.map((r) => r.code).sort()).toEqual([0, 1])
    expect(both.find((r) => r.code === 1)!.out.error.code).toBe("plan-already-applied")
    expect(await query(`SELECT count(*) AS n FROM runs WHERE plan_id = '${planId}'`)).toEqual([{ n: 1 }])
    const applied = (await reasonsOf(planId)).filter((r) => r.endsWith("; applied"))
    expect(applied).toHaveLength(1)
  })

  it("product approve is human only: an agent gets approval-needs-human and a refusal row; a human's approval shows human(id)", async () => {
    const refused = await pcli(["product", "approve", "orders_weekly"], agent)
    expect([refused.code, refused.out.error.code]).toEqual([1, "approval-needs-human"])
    const rows = await query<{ principal: string; reason: string }>(`SELECT principal, reason FROM ledger WHERE reason LIKE '%approval-needs-human%'`)
    expect(rows).toEqual([{ principal: "agent", reason: expect.stringContaining("orders_weekly") }])
    expect((await pcli(["product", "status", "orders_weekly"], human)).out.approval).toBeUndefined()

    const approved = await pcli(["product", "approve", "orders_weekly"], human)
    expect(approved.code, approved.stderr).toBe(0)
    expect(approved.out).toMatchObject({ approver: "reviewer@example.com", approved_by: "human(alice)" })
    const status = await pcli(["product", "status", "orders_weekly"], agent)
    expect(status.out.approval).toMatchObject({ approver: "reviewer@example.com", approved_by: "human(alice)" })
  })
})
