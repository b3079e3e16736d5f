/**
 * decisions.md 36 through the binary, on the real PostgreSQL: state init (and its printed SQL), state
 * info, principals verified by the connection's role, and state migrate from a SQLite store with history.
 */
import { execFileSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeProject, runCli } from "../support/cli"
import { PG_URL, pgAdmin, pgUnavailable } from "../support/postgres"

const unavailable = await pgUnavailable()
const tag = randomBytes(4).toString("hex")
const schema = `t_team_${tag}`
const printedSchema = `t_print_${tag}`
const migratedSchema = `t_mig_${tag}`
const loopSchema = `t_loop_${tag}`
const roles = { agent: `t_agent_${tag}`, human: `t_human_${tag}`, nobody: `t_nobody_${tag}` }
const urlAs = (role: string) => `postgres://${role}@127.0.0.1:5432/test`

const POLICY = `[policy]\nversion = 1\ndefault_agent_effect = "require_review"\n`
const project = (namespace: string) =>
  makeProject({
    "pcli.toml": `[adapter.local]\ntype = "embedded"\n\n[state]\nnamespace = "${namespace}"\n\n${POLICY}`,
    "models/a.sql": "SELECT 1 AS id",
    "models/a.toml": `name = "a"\n[target]\ncatalog = "w"\nschema = "s"\ntable = "a"\n`
  })

let cwd: string
const pcli = async (args: ReadonlyArray<string>, env: Record<string, string>, dir = cwd) => {
  const r = await runCli([...args, "--output", "json"], { cwd: dir, env })
  return { ...r, out: r.stdout.startsWith("{") ? JSON.parse(r.stdout) : undefined }
}
const ledgerOf = (s: string) =>
  pgAdmin<{ seq: number; kind: string; principal: string; principal_id: string; principal_id_source: string; principal_id_verified: number; reason: string }>(
    `SELECT seq, kind, principal, principal_id, principal_id_source, principal_id_verified, reason FROM "${s}".ledger ORDER BY seq`
  )

beforeAll(async () => {
  if (unavailable !== undefined) return
  cwd = project(schema)
  const init = await pcli(["state", "init"], { PCLI_STATE_URL: PG_URL })
  expect(init.code, init.stderr).toBe(0)
  await pgAdmin(`CREATE ROLE ${roles.agent} LOGIN IN ROLE pcli_agent`)
  await pgAdmin(`CREATE ROLE ${roles.human} LOGIN IN ROLE pcli_human`)
  await pgAdmin(`CREATE ROLE ${roles.nobody} LOGIN`)
})

afterAll(async () => {
  if (unavailable !== undefined) return
  for (const s of [schema, printedSchema, migratedSchema, loopSchema]) await pgAdmin(`DROP SCHEMA IF EXISTS "${s}" CASCADE`).catch(() => {})
  for (const r of Object.values(roles)) await pgAdmin(`DROP ROLE IF EXISTS ${r}`).catch(() => {})
})

describe.skipIf(unavailable !== undefined)("team state on PostgreSQL (binary)", () => {
  it("state init makes the store and the two roles once; a second init changes nothing", async () => {
    const again = await pcli(["state", "init"], { PCLI_STATE_URL: PG_URL })
    expect(again.code, again.stderr).toBe(0)
    expect(again.out).toMatchObject({ command: "state_init", backend: "postgres", schema, created: false, roles: ["pcli_human", "pcli_agent"] })
    const groups = await pgAdmin<{ rolname: string; rolcanlogin: boolean }>(`SELECT rolname, rolcanlogin FROM pg_roles WHERE rolname IN ('pcli_human', 'pcli_agent') ORDER BY rolname`)
    expect(groups).toEqual([{ rolname: "pcli_agent", rolcanlogin: false }, { rolname: "pcli_human", rolcanlogin: false }])
  })

  it("state init --print prints SQL a DBA runs as is, and never the URL", async () => {
    const dir = project(printedSchema)
    const printed = await runCli(["state", "init", "--print"], { cwd: dir, env: { PCLI_STATE_URL: `postgres://postgres:s3cret-pw@127.0.0.1:5432/test` } })
    expect(printed.code, printed.stderr).toBe(0)
    expect(printed.stdout).toContain("CREATE ROLE pcli_human NOLOGIN")
    expect(printed.stdout).toContain(`CREATE TRIGGER ledger_append_only BEFORE UPDATE OR DELETE ON "${printedSchema}".ledger`)
    expect(printed.stdout).not.toMatch(/s3cret-pw|postgres:\/\//)
    await pgAdmin(printed.stdout)
    const info = await pcli(["state", "info"], { PCLI_STATE_URL: urlAs(roles.agent) }, dir)
    expect(info.out).toMatchObject({ backend: "postgres", schema: printedSchema, exists: true, ledger_rows: 0 })
  })

  it("state info shows backend, schema and role, never the URL", async () => {
    const info = await pcli(["state", "info"], { PCLI_STATE_URL: urlAs(roles.agent) })
    expect(info.code, info.stderr).toBe(0)
    expect(info.out).toMatchObject({ command: "state_info", backend: "postgres", schema, role: roles.agent, role_principal: "agent" })
    expect(info.stdout).not.toContain("postgres://")
  })

  it("an agent's role writes rows under its verified name; the ledger says so", async () => {
    const freeze = await pcli(["policy", "freeze", "--principal", "agent", "--reason", "incident"], { PCLI_STATE_URL: urlAs(roles.agent) })
    expect(freeze.code, freeze.stderr).toBe(0)
    const last = (await ledgerOf(schema)).at(-1)
    expect(last).toMatchObject({ kind: "freeze", principal: "agent", principal_id: roles.agent, principal_id_source: "role", principal_id_verified: 1 })
    const audit = await pcli(["audit"], { PCLI_STATE_URL: urlAs(roles.human) })
    expect(audit.stdout).toContain('"principal_id_verified": true')
  })

  it("a forged PCLI_PRINCIPAL=human under an agent's role is principal-mismatch, exit 1, with a refusal row", async () => {
    const before = (await ledgerOf(schema)).length
    const forged = await pcli(["policy", "unfreeze", "--principal", "agent"], { PCLI_STATE_URL: urlAs(roles.agent), PCLI_PRINCIPAL: "human" })
    expect(forged.code).toBe(1)
    expect(forged.out.error.code).toBe("principal-mismatch")
    const rows = await ledgerOf(schema)
    expect(rows.length).toBe(before + 1)
    expect(rows.at(-1)).toMatchObject({ principal: "agent", principal_id: roles.agent, principal_id_verified: 1 })
    expect(rows.at(-1)?.reason).toMatch(/^refused \[principal-mismatch\]: PCLI_PRINCIPAL=human/)
    const otherId = await pcli(["policy", "freeze"], { PCLI_STATE_URL: urlAs(roles.agent), PCLI_PRINCIPAL_ID: "alice" })
    expect(otherId.out.error.code).toBe("principal-mismatch")
  })

  it("an agent's role asking to unfreeze is refused, and the refusal is recorded under its verified name", async () => {
    const agentTry = await pcli(["policy", "unfreeze", "--principal", "agent"], { PCLI_STATE_URL: urlAs(roles.agent) })
    expect(agentTry.out.error.code).toBe("unfreeze-needs-human")
    expect((await ledgerOf(schema)).at(-1)).toMatchObject({ kind: "refusal", principal: "agent", principal_id: roles.agent, principal_id_verified: 1 })
  })

  it("a role in neither group: one line with a code, exit 1, nothing written", async () => {
    const before = (await ledgerOf(schema)).length
    const r = await runCli(["policy", "freeze"], { cwd, env: { PCLI_STATE_URL: urlAs(roles.nobody) } })
    expect(r.code).toBe(1)
    expect(r.stderr.trim().split("\n")).toHaveLength(1)
    expect(r.stderr).toContain("error[principal-role-missing]")
    expect((await ledgerOf(schema)).length).toBe(before)
  })

  it("audit --verify holds on the shared chain", async () => {
    const verify = await pcli(["audit", "--verify"], { PCLI_STATE_URL: urlAs(roles.human) })
    expect(verify.code, verify.stderr).toBe(0)
  })
})

describe.skipIf(unavailable !== undefined)("state migrate --to (binary)", () => {
  it("copies a SQLite store with history into an empty pg store, chain verified there; a second copy is refused", async () => {
    const dir = project(migratedSchema)
    const local = {}
    expect((await pcli(["run"], local, dir)).code).toBe(0)
    expect((await pcli(["policy", "freeze", "--principal", "agent", "--reason", "r1"], local, dir)).code).toBe(0)
    expect((await pcli(["policy", "unfreeze", "--principal", "agent"], local, dir)).code).toBe(0)
    expect((await pcli(["policy", "unfreeze", "--principal", "agent"], { PCLI_PRINCIPAL: "agent" }, dir)).code).toBe(1)
    const sqliteVerify = await pcli(["audit", "--verify"], local, dir)
    expect(sqliteVerify.code, sqliteVerify.stderr).toBe(0)

    const migrated = await pcli(["state", "migrate", "--to", PG_URL], local, dir)
    expect(migrated.code, migrated.stderr).toBe(0)
    expect(migrated.out).toMatchObject({ command: "state_migrate", schema: migratedSchema, chain_intact: true, ledger_rows: 3 })
    expect(migrated.out.tables).toContainEqual({ table: "runs", rows: 1 })
    expect(migrated.stdout).not.toContain("postgres://")

    const onPg = await pcli(["audit", "--verify"], { PCLI_STATE_URL: urlAs(roles.human) }, dir)
    expect(onPg.code, onPg.stderr).toBe(0)
    expect(onPg.out.head_hash ?? onPg.stdout).toContain(migrated.out.head_hash)
    const copied = await ledgerOf(migratedSchema)
    expect(copied.map((r) => r.kind)).toEqual(["freeze", "unfreeze", "refusal"])
    expect(copied.every((r) => r.principal_id_verified === 0)).toBe(true)

    const again = await pcli(["state", "migrate", "--to", PG_URL], local, dir)
    expect(again.code).toBe(1)
    expect(again.out.error.code).toBe("migrate-target-not-empty")
    expect((await ledgerOf(migratedSchema)).length).toBe(3)
    const bad = await pcli(["state", "migrate", "--to", "mysql://x"], local, dir)
    expect(bad.out.error.code).toBe("invalid-state-url")
  })
})

describe.skipIf(unavailable !== undefined)("the governance loop across three checkouts sharing one pg store (binary)", () => {
  it("an agent plans on A, a human approves on B, an agent applies on C; the plan applies once", async () => {
    const GIT = { GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", HOME: "/nonexistent" }
    const git = (cwdir: string, ...args: Array<string>) => execFileSync("git", args, { cwd: cwdir, env: { ...process.env, ...GIT }, stdio: ["ignore", "pipe", "pipe"] })
    const root = mkdtempSync(join(tmpdir(), "pcli-loop-"))
    const a = project(loopSchema)
    writeFileSync(join(a, ".gitignore"), ".pcli/\nmodels/.pcli-state*\nmodels/*.duckdb*\n")
    git(a, "init", "-q")
    git(a, "config", "user.email", "reviewer@example.com")
    git(a, "add", ".")
    git(a, "commit", "-qm", "base")
    const [b, c] = ["B", "C"].map((name) => {
      git(root, "clone", "-q", a, name)
      git(join(root, name), "config", "user.email", "reviewer@example.com")
      return join(root, name)
    }) as [string, string]
    const as = (role: string) => ({ ...GIT, PCLI_STATE_URL: urlAs(role) })
    expect((await pcli(["state", "init"], { ...GIT, PCLI_STATE_URL: PG_URL }, a)).code).toBe(0)
    const built = await pcli(["run"], as(roles.human), a)
    expect(built.code, built.stderr).toBe(0)
    // The same change in every checkout (as a pushed branch would carry it).
    for (const dir of [a, b, c]) writeFileSync(join(dir, "models/a.sql"), "SELECT 2 AS id")

    const plan = await pcli(["plan", "--base", "HEAD", "--model", "a"], as(roles.agent), a)
    expect(plan.code, plan.stderr).toBe(0)
    const planId = plan.out.plan_id as string
    const early = await pcli(["apply", planId], as(roles.agent), c)
    expect(early.code).toBe(1)
    const forged = await pcli(["review", planId, "--approve"], { ...as(roles.agent), PCLI_PRINCIPAL: "human" }, b)
    expect(forged.out.error.code).toBe("principal-mismatch")
    const approved = await pcli(["review", planId, "--approve"], as(roles.human), b)
    expect(approved.code, approved.stderr).toBe(0)
    const applied = await pcli(["apply", planId], as(roles.agent), c)
    expect(applied.code, applied.stderr).toBe(0)
    expect((await pcli(["apply", planId], as(roles.agent), a)).out.error.code).toBe("plan-already-applied")

    const rows = await ledgerOf(loopSchema)
    const approval = rows.filter((r) => r.kind === "approval")
    expect(approval).toHaveLength(1)
    expect(approval[0]).toMatchObject({ principal: "human", principal_id: roles.human, principal_id_verified: 1 })
    expect(rows.every((r) => r.principal_id_verified === 1)).toBe(true)
    expect((await pcli(["audit", "--verify"], as(roles.human), b)).code).toBe(0)
  })
})
