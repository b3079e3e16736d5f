/**
 * PostgreSQL for the suite: the server at 127.0.0.1:5432 (trust auth, database `test`), which
 * `.ci/run` starts when it is down. Each test file gets schemas of its own, dropped at the end.
 * Under CI=true a missing server fails the file; elsewhere its pg tests are skipped, saying why.
 */
import pg from "pg"
import { randomBytes } from "node:crypto"
import { afterAll } from "vitest"
import type { PgLocation } from "../../src/services/StateStore/pgStore"

export const PG_URL = "postgres://postgres@127.0.0.1:5432/test"

const probe = async (): Promise<string | undefined> => {
  const pool = new pg.Pool({ connectionString: PG_URL, connectionTimeoutMillis: 3000 })
  pool.on("error", () => {})
  try {
    await pool.query("SELECT 1")
    return undefined
  } catch (e) {
    return `PostgreSQL at 127.0.0.1:5432 (database test) is not ready: ${(e as Error).message}`
  } finally {
    await pool.end().catch(() => {})
  }
}

/** Undefined when the server answers; else why not. Under CI=true a missing server throws, so the file fails. */
export const pgUnavailable = async (): Promise<string | undefined> => {
  const reason = await probe()
  if (reason !== undefined && process.env["CI"] === "true") throw new Error(`${reason} (required under CI=true; .ci/run starts it)`)
  return reason
}

/** Runs one statement as the suite's superuser (fixtures, tampering, cleanup). */
export const pgAdmin = async <R = Record<string, unknown>>(text: string, values: ReadonlyArray<unknown> = []): Promise<ReadonlyArray<R>> => {
  const client = new pg.Client({ connectionString: PG_URL })
  await client.connect()
  try {
    return (await client.query(text, values as Array<unknown>)).rows as ReadonlyArray<R>
  } finally {
    await client.end()
  }
}

/**
 * A fresh schema name for this file (`t_<prefix>_<random>`); every schema made here is dropped
 * when the file ends. The schema itself is created by the store's first write.
 */
export const pgSchemas = (prefix: string) => {
  const made: Array<string> = []
  afterAll(async () => {
    if (made.length === 0) return
    await pgAdmin(made.map((s) => `DROP SCHEMA IF EXISTS "${s}" CASCADE`).join("; ")).catch(() => {})
  })
  return (): PgLocation => {
    const schema = `t_${prefix}_${randomBytes(5).toString("hex")}`
    made.push(schema)
    return { url: PG_URL, schema }
  }
}
