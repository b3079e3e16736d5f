import type { SqlClient } from "@effect/sql"
import { Effect, type Scope } from "effect"
import { StateStoreIo, type StateStoreError } from "./errors"
import { AGENT_ROLE, asScript, createRolesSql, guardSql, HUMAN_ROLE } from "./pgRoles"
import { checkVersions, createStoreSql, migrationLock, openPgClient, type PgLocation, readVersions } from "./pgStore"
import { pgStoreLabel, redactUrl } from "./redact"

/**
 * `pcli state init` on PostgreSQL (decisions.md 36): the schema, the baseline tables, the two
 * principal roles and the rules the database enforces, in one transaction, or as a script a DBA runs.
 */

/** What `state init --print` prints: the whole init as a psql script, one transaction. */
export const initScript = (schema: string): string => asScript(["BEGIN", ...createStoreSql(schema), "COMMIT"])

/** Runs `statements` in order on `sql` (inside the caller's transaction). */
const runAll = (sql: SqlClient.SqlClient, statements: ReadonlyArray<string>) => Effect.forEach(statements, (s) => sql.unsafe(s), { discard: true })

/**
 * Makes the store in `sql`'s current transaction when it is missing (the caller holds the migration
 * lock), or (re)applies the roles and the guard to the one there. Answers whether the store was made.
 */
export const ensureGuardedStore = (sql: SqlClient.SqlClient, schema: string, label: string) =>
  Effect.gen(function* () {
    const versions = yield* readVersions(sql, schema)
    if (versions === undefined) {
      yield* runAll(sql, createStoreSql(schema))
      return true
    }
    yield* checkVersions(label, versions)
    yield* runAll(sql, [...createRolesSql(), ...guardSql(schema)])
    return false
  })

export interface PgInitResult {
  readonly label: string
  readonly created: boolean
  readonly roles: ReadonlyArray<string>
}

/** `state init` run against the server: idempotent; nothing is left half-made (one transaction). */
export const initPgStore = (location: PgLocation): Effect.Effect<PgInitResult, StateStoreError, Scope.Scope> =>
  Effect.gen(function* () {
    const label = pgStoreLabel(location.schema)
    const sql = yield* openPgClient(location)
    const created = yield* sql
      .withTransaction(Effect.zipRight(migrationLock(sql, location.schema), ensureGuardedStore(sql, location.schema, label)))
      .pipe(
        Effect.catchTag("SqlError", (e) =>
          Effect.fail(new StateStoreIo({ path: label, detail: `init failed: ${redactUrl(String((e.cause as Error | undefined)?.message ?? e.message), location.url)}` }))
        )
      )
    return { label, created, roles: [HUMAN_ROLE, AGENT_ROLE] }
  })
