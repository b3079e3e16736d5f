import { execFileSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createRolesSql } from "../../src/services/StateStore/pgRoles"
import { makeProject, runCli } from "../support/cli"
import { PG_URL, pgAdmin, pgSchemas, pgUnavailable } from "../support/postgres"

// Team state through the binary (decision 36): bad input is one line, a code, exit 1 and nothing
// written, the URL never shown; and the governance loop across three "machines" sharing one pg store.
const pgSkip = await pgUnavailable()
const freshSchema = pgSchemas("cli")

const GIT = { GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", HOME: "/nonexistent" }
// On pg the principal is the connection's role (decisions.md 36): a login role in each group, and the URL as it.
const tag = randomBytes(3).toString("hex")
const roles = { human: `t_alice_${tag}`, agent: `t_bot_${tag}` }
const urlAs = (role: string) => `postgres://${role}@127.0.0.1:5432/test`
const agent = { PCLI_PRINCIPAL: "agent", TEAM_STATE: urlAs(roles.agent) }
const human = { PCLI_PRINCIPAL: "human", TEAM_STATE: urlAs(roles.human) }

beforeAll(async () => {
  if (pgSkip !== undefined) return
  for (const statement of createRolesSql()) await pgAdmin(statement)
  await pgAdmin(`CREATE ROLE ${roles.human} LOGIN IN ROLE pcli_human`)
  await pgAdmin(`CREATE ROLE ${roles.agent} LOGIN IN ROLE pcli_agent`)
})
afterAll(async () => {
  if (pgSkip !== undefined) return
  for (const role of Object.values(roles)) await pgAdmin(`DROP ROLE IF EXISTS ${role}`).catch(() => {})
})
const sidecar = (name: string) => `name = "${name}"\n[target]\ncatalog = "w"\nschema = "s"\ntable = "${name}"\n`

const schemaExists = async (schema: string) => (await pgAdmin<{ n: number }>(`SELECT count(*)::int AS n FROM pg_namespace WHERE nspname = $1`, [schema]))[0]?.n === 1

describe.skipIf(pgSkip !== undefined)("pg state: bad input", () => {
  let cwd: string
  beforeAll(() => {
    cwd = makeProject({ "models/.keep": "" })
  })

  it("an unreachable server fails with retries shown, one error line, the URL redacted, nothing created", async () => {
    const schema = freshSchema()
    const r = await runCli(["policy", "freeze", "--principal", "agent", "--state-namespace", schema.schema], {
      cwd,
      env: { ...human, PCLI_STATE_URL: "postgres://deploy:s3cretpw@127.0.0.1:1/test" }
    })
    expect(r.code).toBe(1)
    const lines = r.stderr.trim().split("\n")
    expect(lines.filter((l) => l.includes("retrying"))).toHaveLength(2)
    expect(lines[lines.length - 1]).toMatch(/^error\[state-store-unreachable\]: postgres state store \(schema t_cli_\w+\) is unreachable after 3 attempts/)
    expect(r.stderr + r.stdout).not.toMatch(/s3cretpw|deploy/)
    expect(await schemaExists(schema.schema)).toBe(false)
  })

  it("credentials the server refuses are state-store-denied, without retrying", async () => {
    const schema = freshSchema()
    const r = await runCli(["policy", "freeze", "--principal", "agent", "--state-namespace", schema.schema], {
      cwd,
      env: { ...human, PCLI_STATE_URL: "postgres://nosuchrole_x:pw@127.0.0.1:5432/test" }
    })
    expect(r.code).toBe(1)
    expect(r.stderr.trim().split("\n")).toHaveLength(1)
    expect(r.stderr).toMatch(/^error\[state-store-denied\]/)
    expect(r.stderr).not.toContain("nosuchrole_x")
    expect(await schemaExists(schema.schema)).toBe(false)
  })

  it("a store whose minimum reader is newer is refused and left as it was", async () => {
    const schema = freshSchema()
    const init = await runCli(["state", "init", "--state-namespace", schema.schema], { cwd, env: { PCLI_STATE_URL: PG_URL } })
    expect(init.code, init.stderr).toBe(0)
    const env = { ...human, PCLI_STATE_URL: urlAs(roles.human) }
    const made = await runCli(["policy", "freeze", "--principal", "agent", "--state-namespace", schema.schema], { cwd, env })
    expect(made.code, made.stderr).toBe(0)
    await pgAdmin(`UPDATE "${schema.schema}".meta SET value = '99' WHERE key IN ('schema_version', 'min_reader_version')`)
    const r = await runCli(["policy", "freeze", "--principal", "human", "--state-namespace", schema.schema], { cwd, env })
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/^error\[state-store-newer\]/)
    expect((await pgAdmin<{ n: number }>(`SELECT count(*)::int AS n FROM "${schema.schema}".ledger`))[0]?.n).toBe(1)
  })

  it("a store older than this pcli (no PostgreSQL migration exists) is refused for reads and writes, and left as it was", async () => {
    const schema = freshSchema()
    const env = { ...human, PCLI_STATE_URL: urlAs(roles.human) }
    const init = await runCli(["state", "init", "--state-namespace", schema.schema], { cwd, env: { PCLI_STATE_URL: PG_URL } })
    expect(init.code, init.stderr).toBe(0)
    const made = await runCli(["policy", "freeze", "--principal", "agent", "--state-namespace", schema.schema], { cwd, env })
    expect(made.code, made.stderr).toBe(0)
    await pgAdmin(`UPDATE "${schema.schema}".meta SET value = '14' WHERE key IN ('schema_version', 'min_reader_version')`)
    for (const args of [["policy", "freeze", "--principal", "human"], ["audit"]]) {
      const r = await runCli([...args, "--state-namespace", schema.schema], { cwd, env })
      expect(r.code, args.join(" ")).toBe(1)
      expect(r.stderr.trim().split("\n")).toHaveLength(1)
      expect(r.stderr).toMatch(/^error\[state-store-older\]: .*schema version 14 .*no PostgreSQL migration/)
    }
    expect((await pgAdmin<{ n: number }>(`SELECT count(*)::int AS n FROM "${schema.schema}".ledger`))[0]?.n).toBe(1)
  })

  it("a [state] url with an unset ${VAR} is config-missing-env; a URL of another kind is invalid-state-url", async () => {
    const dir = makeProject({ "pcli.toml": `[state]\nurl = "\${TEAM_STATE_URL}"\n`, "models/.keep": "" })
    const missing = await runCli(["audit"], { cwd: dir })
    expect(missing.code).toBe(1)
    expect(missing.stderr).toMatch(/^error\[config-missing-env\].*TEAM_STATE_URL/)
    const other = await runCli(["audit"], { cwd: dir, env: { TEAM_STATE_URL: "mysql://root:pw@db/x" } })
    expect(other.code).toBe(1)
    expect(other.stderr.trim()).toMatch(/^error\[invalid-state-url\]: \[state\] url is not a PostgreSQL URL/)
    expect(other.stderr).not.toContain("pw@db")
  })
})

describe.skipIf(pgSkip !== undefined)("pg state: one governance loop across three machines", () => {
  it("an agent plans on A, a human approves on B, an apply on C builds it; a freeze on A stops C", async () => {
    const schema = freshSchema().schema
    const origin = makeProject({
      "pcli.toml": `[adapter.local]\ntype = "embedded"\n\n[policy]\nversion = 1\ndefault_agent_effect = "require_review"\n\n[state]\nurl = "\${TEAM_STATE}"\nnamespace = "${schema}"\n`,
      ".gitignore": ".pcli/\n*.duckdb*\n",
      "models/orders.sql": "SELECT 1 AS id",
      "models/orders.toml": sidecar("orders")
    })
    const git = (cwd: string, ...args: Array<string>) => execFileSync("git", args, { cwd, env: { ...process.env, ...GIT }, stdio: ["ignore", "pipe", "pipe"] })
    git(origin, "init", "-q")
    git(origin, "config", "user.email", "reviewer@example.com")
    git(origin, "add", ".")
    git(origin, "commit", "-qm", "base")
    const machines = ["a", "b", "c"].map((m) => {
      const dir = join(makeProject(), m)
      git(origin, "clone", "-q", origin, dir)
      git(dir, "config", "user.email", `${m}@example.com`)
      return dir
    })
    const [a, b, c] = machines as [string, string, string]
    const pcli = async (cwd: string, args: ReadonlyArray<string>, env: Record<string, string>) => {
      const r = await runCli([...args, "--output", "json"], { cwd, env: { ...GIT, TEAM_STATE: PG_URL, ...env } })
      return { ...r, out: r.stdout === "" ? undefined : JSON.parse(r.stdout) }
    }
    expect((await pcli(a, ["state", "init"], { TEAM_STATE: PG_URL })).code).toBe(0)
    const built = await pcli(c, ["run"], human)
    expect(built.code, built.stderr).toBe(0)
    // The same change reaches every machine (as a pushed branch would); the agent plans it on A.
    for (const dir of machines) writeFileSync(join(dir, "models/orders.sql"), "SELECT 2 AS id")
    const plan = await pcli(a, ["plan", "--base", "HEAD", "--model", "orders"], agent)
    expect(plan.code, plan.stderr).toBe(0)
    const planId = plan.out.plan_id as string
    const approved = await pcli(b, ["review", planId, "--approve"], human)
    expect(approved.code, approved.stderr).toBe(0)
    const status = await pcli(c, ["review", planId, "--status"], agent)
    expect(status.out.reviewed).toBe(true)
    const applied = await pcli(c, ["apply", planId], agent)
    expect(applied.code, applied.stderr).toBe(0)
    // A second change, approved on B; a freeze made on A then stops its apply on C.
    for (const dir of machines) writeFileSync(join(dir, "models/orders.sql"), "SELECT 3 AS id")
    const second = await pcli(a, ["plan", "--base", "HEAD", "--model", "orders"], agent)
    expect(second.code, second.stderr).toBe(0)
    const secondId = second.out.plan_id as string
    const again = await pcli(b, ["review", secondId, "--approve"], human)
    expect(again.code, again.stderr).toBe(0)
    const frozen = await pcli(a, ["policy", "freeze", "--principal", "agent", "--reason", "quarter close"], human)
    expect(frozen.code, frozen.stderr).toBe(0)
    const refused = await pcli(c, ["apply", secondId], agent)
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/frozen|freeze/)
    const verify = await pcli(b, ["audit", "--verify"], human)
    expect(verify.code, verify.stderr).toBe(0)
    const kinds = await pgAdmin<{ kind: string }>(`SELECT kind FROM "${schema}".ledger WHERE kind IN ('approval', 'freeze') ORDER BY seq`)
    expect(kinds.map((k) => k.kind)).toEqual(["approval", "approval", "freeze"])
    expect((await pgAdmin<{ n: number }>(`SELECT count(*)::int AS n FROM "${schema}".plans WHERE plan_id IN ($1, $2)`, [planId, secondId]))[0]?.n).toBe(2)
  })
})
