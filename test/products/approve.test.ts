import { SqlClient } from "@effect/sql"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { Effect } from "effect"
import { spawn, spawnSync } from "node:child_process"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { open } from "node:fs/promises"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { PCLI_BIN } from "../support/cli"
import type { CliResult } from "../support/cli"
import { makeProject } from "../support/cli"
import { GIT_ENV, json, pcli, policyFor, productProject, snapshotTree, specText } from "./support"

const STORE = "models/.pcli-state.sqlite"

const query = <A extends object>(root: string, text: string) =>
  Effect.runPromise(
    Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe<A>(text)).pipe(Effect.provide(SqliteClient.layer({ filename: join(root, STORE), readonly: true })))
  )

/** Spawns the binary without waiting, so two processes can race. */
const start = (cwd: string, args: ReadonlyArray<string>, env: Record<string, string>) => {
  const child = spawn(process.execPath, [PCLI_BIN, ...args], { cwd, env: { PATH: process.env["PATH"] ?? "", ...GIT_ENV, ...env } })
  let stdout = ""
  let stderr = ""
  child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d))
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d))
  return new Promise<CliResult>((resolve) => child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr })))
}

describe("pcli product approve", () => {
  it("writes the snapshot, the approval, state spec_approved, a journal row and a ledger row with the principal", async () => {
    const root = productProject()
    const gitconfig = join(root, "gitconfig")
    writeFileSync(gitconfig, "[user]\n\temail = ada@example.com\n")
    const r = await pcli(root, ["product", "approve", "orders_weekly", "--output", "json", "--principal-id", "ada"], { GIT_CONFIG_GLOBAL: gitconfig })
    expect(r.code).toBe(0)
    const out = json(r)
    expect(Object.keys(out)).toEqual(["command", "product_id", "spec_digest", "output_model", "approver", "approved_by", "approved_at", "snapshot_path", "state", "already_approved"])
    const digest = out["spec_digest"] as string
    expect(out).toMatchObject({ command: "product_approve", approver: "ada@example.com", approved_by: "human(ada)", state: "spec_approved", already_approved: false })
    expect(out["approved_at"]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
    expect(out["snapshot_path"]).toBe(`.pcli/fulfillment/orders_weekly/approved-${digest.slice("sha256:".length)}.toml`)
    expect(readFileSync(join(root, out["snapshot_path"] as string))).toEqual(readFileSync(join(root, "products/orders_weekly.toml")))
    const ledger = await query<Record<string, unknown>>(root, "SELECT kind, principal, principal_id, principal_id_source, model, plan_id FROM ledger")
    expect(ledger).toEqual([{ kind: "approval", principal: "human", principal_id: "ada", principal_id_source: "flag", model: "orders_weekly_mart", plan_id: null }])

    const again = await pcli(root, ["product", "approve", "orders_weekly", "--output", "json"])
    expect(json(again)).toEqual({ ...out, previous_state: "spec_approved", already_approved: true })
    expect(await query(root, "SELECT count(*) AS n FROM product_journal")).toEqual([{ n: 1 }])

    // A new revision is a new approval: the old state is reported and the journal grows.
    writeFileSync(join(root, "products/orders_weekly.toml"), `${specText()}# reviewed\n`)
    const second = await pcli(root, ["product", "approve", "orders_weekly", "--output", "json"])
    expect(json(second)).toMatchObject({ previous_state: "spec_approved", state: "spec_approved", already_approved: false, approver: "unknown" })
    const journal = await pcli(root, ["product", "journal", "orders_weekly", "--output", "json"])
    expect(json(journal)).toMatchObject({ command: "product_journal", product: "orders_weekly", product_id: "product:orders_weekly", count: 2 })
    expect((json(journal)["rows"] as Array<Record<string, unknown>>)[1]).toEqual({
      seq: 2,
      at: json(second)["approved_at"],
      event: "spec approved",
      from_state: "spec_approved",
      to_state: "spec_approved",
      spec_digest: json(second)["spec_digest"],
      plan_id: null,
      idempotency_key: null
    })
  })

  it("an approved digest whose snapshot was tampered with is refused (tamper)", async () => {
    const root = productProject()
    const r = await pcli(root, ["product", "approve", "orders_weekly", "--output", "json"])
    writeFileSync(join(root, json(r)["snapshot_path"] as string), "forged = true\n")
    const again = await pcli(root, ["product", "approve", "orders_weekly", "--output", "json"])
    expect([again.code, (json(again)["error"] as { code: string }).code]).toEqual([1, "tamper"])
  })

  it("two concurrent approvals from separate processes: exactly one wins, the loser names the winner's digest", async () => {
    const root = productProject({ "products/other.toml": specText({ name: "other", model: "other_model" }) })
    // Create the store first, so the race is the approval, not the store's creation.
    expect((await pcli(root, ["product", "approve", "other"])).code).toBe(0)
    const fifos = ["a", "b"].map((n) => join(root, `barrier-${n}`))
    for (const f of fifos) expect(spawnSync("mkfifo", [f]).status).toBe(0)
    // Each process stops after reading the store (and writing its snapshot) until its barrier opens.
    const first = start(root, ["product", "approve", "orders_weekly", "--output", "json"], { PCLI_TEST_PAUSE_AT: `approve-observed:${fifos[0]}` })
    const barrierA = await open(fifos[0]!, "w")
    writeFileSync(join(root, "products/orders_weekly.toml"), `${specText()}# second revision\n`)
    const second = start(root, ["product", "approve", "orders_weekly", "--output", "json"], { PCLI_TEST_PAUSE_AT: `approve-observed:${fifos[1]}` })
    const barrierB = await open(fifos[1]!, "w")
    await Promise.all([barrierA.close(), barrierB.close()])
    const results = await Promise.all([first, second])
    const winners = results.filter((r) => r.code === 0)
    const losers = results.filter((r) => r.code !== 0)
    expect([winners.length, losers.length]).toEqual([1, 1])
    const winningDigest = json(winners[0]!)["spec_digest"] as string
    expect(json(losers[0]!)).toEqual({ error: { code: "approval-cas-lost", message: expect.stringContaining(`the approved digest is now ${winningDigest}`) } })
    expect(await query(root, "SELECT spec_digest FROM product_approvals WHERE product = 'orders_weekly'")).toEqual([{ spec_digest: winningDigest }])
    expect(await query(root, "SELECT count(*) AS n FROM product_journal WHERE product = 'orders_weekly'")).toEqual([{ n: 1 }])
    expect(await query(root, "SELECT count(*) AS n FROM ledger WHERE model = 'orders_weekly_mart'")).toEqual([{ n: 1 }])
  })
})

describe("pcli product status | list | journal (read-only)", () => {
  it("change no byte on disk, even with a crashed commit pending", async () => {
    const root = productProject({ "products/broken.toml": "not toml [" })
    expect((await pcli(root, ["product", "approve", "orders_weekly"])).code).toBe(0)
    expect((await pcli(root, ["product", "compile", "orders_weekly"], { PCLI_TEST_CRASH_AFTER: "journal" })).code).toBe(-1)
    const before = snapshotTree(root)
    const status = await pcli(root, ["product", "status", "orders_weekly", "--output", "json"])
    const list = await pcli(root, ["product", "list", "--output", "json"])
    const journal = await pcli(root, ["product", "journal", "orders_weekly", "--output", "json"])
    expect([status.code, list.code, journal.code]).toEqual([0, 0, 0])
    expect(snapshotTree(root)).toEqual(before)
    expect(json(status)).toMatchObject({ staging_journal_present: true, fulfill_state: "spec_approved", journal_rows: 1, snapshot_intact: true, spec_matches_approval: true })
    expect(Object.keys(json(status))).toEqual([
      "command", "product", "spec_present", "product_id", "spec_digest", "output_model", "artifact_problems",
      "staging_journal_present", "approval", "snapshot_intact", "spec_matches_approval", "fulfill_state", "journal_rows"
    ])
    const entries = json(list)["products"] as Array<Record<string, unknown>>
    expect(entries.map((e) => [e["product"], e["spec_present"], e["spec_error"]])).toEqual([
      ["broken", true, expect.stringMatching(/^\[not-toml\]/)],
      ["orders_weekly", true, undefined]
    ])
    expect(json(list)["count"]).toBe(2)
  })

  it("report artifact drift against the manifest; unknown products are product_not_found; an empty project lists nothing", async () => {
    const root = productProject()
    expect((await pcli(root, ["product", "compile", "orders_weekly"])).code).toBe(0)
    writeFileSync(join(root, "models/orders_weekly_mart.contract.toml"), "# changed\n")
    const status = await pcli(root, ["product", "status", "orders_weekly", "--output", "json"])
    expect(json(status)["committed_phase"]).toBe("lowered_contract")
    expect(json(status)["artifact_problems"]).toEqual([expect.stringMatching(/^models\/orders_weekly_mart\.contract\.toml: content drift \(expected sha256:[0-9a-f]{64}, found sha256:[0-9a-f]{64}\)$/)])
    for (const verb of ["status", "journal"]) {
      const r = await pcli(root, ["product", verb, "nope", "--output", "json"])
      expect([verb, r.code, (json(r)["error"] as { code: string }).code]).toEqual([verb, 1, "product_not_found"])
    }
    const empty = makeProject({ "pcli.toml": policyFor("x") })
    const list = await pcli(empty, ["product", "list", "--output", "json"])
    expect([list.code, json(list)]).toEqual([0, { command: "product_list", products: [], count: 0 }])
    expect(existsSync(join(empty, STORE))).toBe(false)
    const known = await pcli(root, ["product", "journal", "orders_weekly", "--output", "json"])
    expect([known.code, json(known)["rows"], json(known)["count"]]).toEqual([0, [], 0])
  })
})
