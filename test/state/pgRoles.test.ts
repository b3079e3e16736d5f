/**
 * decisions.md 36: the database, not pcli, enforces the ledger's append-only rows and human-only
 * approvals. Each statement here goes to PostgreSQL on a raw connection as a member of a group role,
 * the way an agent with the URL could send it, bypassing pcli altogether.
 */
import pg, { type Pool } from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { initScript } from "../../src/services/StateStore/pgInit"
import { createRolesSql, guardSql } from "../../src/services/StateStore/pgRoles"
import { PG_URL, pgUnavailable } from "../support/postgres"

const pgAdminUrl = PG_URL
const pgUrlAs = (role: string) => `postgres://${role}@127.0.0.1:5432/test`
// Under CI=true a missing server fails the file here.
await pgUnavailable()

const suffix = `${process.pid}_${Date.now().toString(36)}`
const schema = `t_roles_${suffix}`
const agentRole = `t_agent_${suffix}`
const humanRole = `t_human_${suffix}`

// One connection per role (a pool of one), the store's schema first on its search_path.
let admin: Pool
let agent: Pool
let human: Pool

const connect = async (url: string) => {
  const client = new pg.Pool({ connectionString: url, options: `-c search_path=${schema}`, max: 1 })
  await client.query("SELECT 1")
  return client
}

let nextSeq = 1
/** A complete ledger row (every NOT NULL column set), so only a rule can refuse it. */
const ledgerInsert = (client: Pool, row: { kind: string; principal: string; principal_id: string; verified?: number }) =>
  client.query(
    `INSERT INTO ledger (seq, decision_ref, kind, timestamp, principal, principal_id, principal_id_source, principal_id_verified, row_hash)
     VALUES ($1, $2, $3, '2026-01-01T00:00:00.000Z', $4, $5, 'role', $6, $7)`,
    [nextSeq, `ref-${nextSeq++}`, row.kind, row.principal, row.principal_id, row.verified ?? 1, "0".repeat(64)]
  )

/** The SQLSTATE a refused statement fails with. */
const refusal = (statement: Promise<unknown>) => statement.then(() => "accepted", (e: { code?: string }) => e.code ?? "no code")

beforeAll(async () => {
  admin = await connect(pgAdminUrl)
  await admin.query(initScript(schema))
  await admin.query(`CREATE ROLE ${agentRole} LOGIN IN ROLE pcli_agent`)
  await admin.query(`CREATE ROLE ${humanRole} LOGIN IN ROLE pcli_human`)
  agent = await connect(pgUrlAs(agentRole))
  human = await connect(pgUrlAs(humanRole))
})

afterAll(async () => {
  await agent?.end()
  await human?.end()
  await admin?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
  await admin?.query(`DROP ROLE IF EXISTS ${agentRole}`)
  await admin?.query(`DROP ROLE IF EXISTS ${humanRole}`)
  await admin?.end()
})

describe("an agent's role on a raw connection", () => {
  it("appends an evaluation in its own verified name, and reads", async () => {
    await ledgerInsert(agent, { kind: "evaluation", principal: "agent", principal_id: agentRole })
    const { rows } = await agent.query(`SELECT count(*)::int AS n FROM ledger`)
    expect(rows[0]!.n).toBeGreaterThanOrEqual(1)
  })

  it("cannot UPDATE, DELETE or TRUNCATE ledger rows", async () => {
    expect(await refusal(agent.query(`UPDATE ledger SET reason = 'rewritten'`))).toBe("42501")
    expect(await refusal(agent.query(`DELETE FROM ledger`))).toBe("42501")
    expect(await refusal(agent.query(`TRUNCATE ledger`))).toBe("42501")
  })

  it("cannot INSERT an approval or an unfreeze, under any class", async () => {
    for (const kind of ["approval", "unfreeze"]) {
      for (const principal of ["agent", "human"]) {
        expect(await refusal(ledgerInsert(agent, { kind, principal, principal_id: agentRole }))).toBe("42501")
      }
    }
  })

  it("cannot write a row as a human, under another id, or unverified", async () => {
    expect(await refusal(ledgerInsert(agent, { kind: "evaluation", principal: "human", principal_id: agentRole }))).toBe("42501")
    expect(await refusal(ledgerInsert(agent, { kind: "evaluation", principal: "agent", principal_id: humanRole }))).toBe("42501")
    expect(await refusal(ledgerInsert(agent, { kind: "evaluation", principal: "agent", principal_id: agentRole, verified: 0 }))).toBe("42501")
  })

  it("cannot write a product approval", async () => {
    const insert = agent.query(
      `INSERT INTO product_approvals (product, product_id, spec_digest, approver, approved_at, snapshot_path) VALUES ('p', 'p', 'd', 'a', 't', 's')`
    )
    expect(await refusal(insert)).toBe("42501")
  })

  it("cannot move the schema version, only the brief cursor", async () => {
    expect(await refusal(agent.query(`UPDATE meta SET value = '999' WHERE key = 'schema_version'`))).toBe("accepted")
    const { rows } = await admin.query(`SELECT value FROM meta WHERE key = 'schema_version'`)
    expect(rows[0]!.value).not.toBe("999")
    expect(await refusal(agent.query(`INSERT INTO meta (key, value) VALUES ('min_reader_version', '999')`))).toBe("42501")
    expect(await refusal(agent.query(`INSERT INTO meta (key, value) VALUES ('last_brief_at', 't') ON CONFLICT (key) DO UPDATE SET value = excluded.value`))).toBe("accepted")
  })
})

describe("a human's role on a raw connection", () => {
  it("appends an approval and writes a product approval", async () => {
    expect(await refusal(ledgerInsert(human, { kind: "approval", principal: "human", principal_id: humanRole }))).toBe("accepted")
    const insert = human.query(
      `INSERT INTO product_approvals (product, product_id, spec_digest, approver, approved_at, snapshot_path) VALUES ('p', 'p', 'd', 'a', 't', 's')`
    )
    expect(await refusal(insert)).toBe("accepted")
  })

  it("cannot change a ledger row either", async () => {
    expect(await refusal(human.query(`UPDATE ledger SET reason = 'rewritten'`))).toBe("42501")
    expect(await refusal(human.query(`DELETE FROM ledger`))).toBe("42501")
  })
})

describe("the owner", () => {
  it("is stopped by the trigger: the ledger is append-only even for the role that made it", async () => {
    const update = await admin.query(`UPDATE ledger SET reason = 'x'`).then(() => "accepted", (e: Error & { code?: string }) => `${e.code} ${e.message}`)
    expect(update).toMatch(/^42501 pcli ledger rows are append-only: UPDATE refused/)
    expect(await refusal(admin.query(`DELETE FROM ledger`))).toBe("42501")
    expect(await refusal(admin.query(`TRUNCATE ledger`))).toBe("42501")
  })

  it("can run the roles and the guard again (init is idempotent; the roles are cluster-global)", async () => {
    for (const statement of [...createRolesSql(), ...guardSql(schema)]) await admin.query(statement)
    expect(await refusal(agent.query(`DELETE FROM ledger`))).toBe("42501")
  })
})

describe("the chain head", () => {
  it("only moves forward, to a row the ledger holds, even for a member that may update it", async () => {
    const [last] = (await agent.query(`SELECT seq, row_hash FROM ledger ORDER BY seq DESC LIMIT 1`)).rows
    if (last === undefined) throw new Error("no ledger row")
    expect(await refusal(agent.query(`UPDATE ledger_head SET seq = $1, row_hash = $2 WHERE id = 1`, [Number(last["seq"]) + 5, "f".repeat(64)]))).toBe("42501")
    expect(await refusal(agent.query(`UPDATE ledger_head SET seq = $1, row_hash = $2 WHERE id = 1`, [last["seq"], last["row_hash"]]))).toBe("accepted")
    expect(await refusal(agent.query(`UPDATE ledger_head SET seq = 0, row_hash = $1 WHERE id = 1`, ["0".repeat(64)]))).toBe("42501")
    expect(await refusal(agent.query(`DELETE FROM ledger_head`))).toBe("42501")
  })
})
