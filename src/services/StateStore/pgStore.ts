import { SqlClient, type SqlError } from "@effect/sql"
import { Context, Effect, Layer, Schedule, type Scope } from "effect"
import { StateStoreCorrupt, StateStoreDenied, type StateStoreError, StateStoreIo, StateStoreNewer, StateStoreOlder, StateStoreUnreachable } from "./errors"
import { PG_BASELINE_VERSION, pgBaseline } from "./pgBaseline"
import { createRolesSql, guardSql, PrincipalRoleMissing, ROLE_QUERY } from "./pgRoles"
import { pgStoreLabel, redactUrl } from "./redact"
import { CURRENT_SCHEMA_VERSION } from "./schemaVersion"

/**
 * Team state on PostgreSQL (decision 36). The exported entry points other services build on:
 * `openPgClient` (a SqlClient on the store's schema, int8/numeric parsed as numbers, connection
 * retried visibly, every error redacted) and `openPgStore` (that client with the store created or
 * checked at the current version). The URL never leaves this module unredacted.
 */
export interface PgLocation {
  /** The `postgres://` URL: a secret. */
  readonly url: string
  /** The pg schema the store lives in: the state namespace, or `pcli`. */
  readonly schema: string
}

/** The schema a namespace maps to: the namespace itself (its grammar is a safe identifier), else `pcli`. */
export const pgSchemaFor = (namespace: string | undefined) => namespace ?? "pcli"

const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`

/** Attempts to reach the server, spaced so the last fails well inside 10 s (each connect is capped at 2 s). */
const CONNECT_ATTEMPTS = 3
const CONNECT_TIMEOUT_MS = 2000
const retrySpacing = Schedule.spaced("500 millis").pipe(Schedule.intersect(Schedule.recurs(CONNECT_ATTEMPTS - 1)))

/** Errors of a server that answered (bad credentials, missing database): retrying cannot help. */
const isFinal = (cause: unknown) => {
  const code = String((cause as { code?: unknown } | undefined)?.code ?? "")
  return code === "28P01" || code === "28000" || code === "3D000" || code === "42501"
}

const causeText = (e: unknown): string => {
  const cause = (e as { cause?: unknown } | undefined)?.cause ?? e
  const code = (cause as { code?: unknown } | undefined)?.code
  const message = (cause as Error | undefined)?.message || String(cause)
  return typeof code === "string" && code.length > 0 && !message.includes(code) ? `${message} (${code})` : message
}

const pgModules = Effect.promise(() => Promise.all([import("pg"), import("@effect/sql-pg")]))

/**
 * A SqlClient on `location`'s schema: `search_path` is the schema, so store SQL names tables bare.
 * int8 (count(*), BIGINT columns) and numeric (sum()) come back as numbers, not strings.
 */
export const openPgClient = (
  location: PgLocation,
  options: { readonly onRetry?: (attempt: number, detail: string) => void } = {}
): Effect.Effect<SqlClient.SqlClient, StateStoreError, Scope.Scope> =>
  Effect.gen(function* () {
    const label = pgStoreLabel(location.schema)
    const [pgModule, { PgClient }] = yield* pgModules
    const pg = (pgModule as unknown as { default?: typeof pgModule }).default ?? pgModule
    const asNumber = (value: string) => Number(value)
    const types = {
      getTypeParser: ((oid: number, format?: "text" | "binary") =>
        oid === pg.types.builtins.INT8 || oid === pg.types.builtins.NUMERIC ? asNumber : pg.types.getTypeParser(oid, format as "text")) as typeof pg.types.getTypeParser
    }
    let attempt = 0
    const acquire = Effect.acquireRelease(
      Effect.tryPromise({
        try: async () => {
          attempt++
          const pool = new pg.Pool({
            connectionString: location.url,
            connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
            options: `-c search_path=${quoteIdent(location.schema)}`,
            application_name: "pcli",
            types
          })
          pool.on("error", () => {})
          try {
            await pool.query("SELECT 1")
            return pool
          } catch (cause) {
            await pool.end().catch(() => {})
            throw cause
          }
        },
        catch: (cause) => cause
      }),
      (pool) => Effect.promise(() => pool.end().catch(() => {}))
    )
    const connected = acquire.pipe(
      Effect.tapError((cause) =>
        Effect.sync(() => {
          if (!isFinal(cause) && attempt < CONNECT_ATTEMPTS) options.onRetry?.(attempt, redactUrl(causeText(cause), location.url))
        })
      ),
      Effect.retry({ schedule: retrySpacing, while: (cause) => !isFinal(cause) }),
      Effect.mapError((cause) =>
        isFinal(cause)
          ? new StateStoreDenied({ path: label, detail: redactUrl(causeText(cause), location.url) })
          : new StateStoreUnreachable({ path: label, attempts: attempt, detail: redactUrl(causeText(cause), location.url) })
      )
    )
    const ctx = yield* Layer.build(PgClient.layerFromPool({ acquire: connected, types, applicationName: "pcli" } as never)).pipe(
      Effect.mapError((e) => (e instanceof StateStoreDenied || e instanceof StateStoreUnreachable ? e : new StateStoreIo({ path: label, detail: redactUrl(causeText(e), location.url) })))
    )
    return Context.get(ctx as Context.Context<SqlClient.SqlClient>, SqlClient.SqlClient)
  })

/** Visible retries: one stderr line per failed attempt, the URL redacted. */
const stderrRetry = (attempt: number, detail: string) => {
  process.stderr.write(`pcli: state store unreachable (attempt ${attempt}/${CONNECT_ATTEMPTS}): ${detail}; retrying\n`)
}

/** A transaction-scoped advisory lock per schema: concurrent first opens create the store once. */
export const migrationLock = (sql: SqlClient.SqlClient, schema: string) => sql`SELECT pg_advisory_xact_lock(hashtext(${`pcli-migrate:${schema}`}))`

export const readVersions = (sql: SqlClient.SqlClient, schema: string) =>
  Effect.gen(function* () {
    const [found] = yield* sql<{ present: boolean }>`SELECT to_regclass(${`${quoteIdent(schema)}.meta`}) IS NOT NULL AS present`
    if (found?.present !== true) return undefined
    const rows = yield* sql<{ key: string; value: string }>`SELECT key, value FROM meta WHERE key IN ('schema_version', 'min_reader_version')`
    const value = (key: string) => rows.find((r) => r.key === key)?.value
    const version = Number(value("schema_version"))
    const minReader = value("min_reader_version") === undefined ? version : Number(value("min_reader_version"))
    return { version, minReader }
  })

/** What a store's recorded versions allow this pcli: a store whose minimum reader is newer is refused. */
export const checkVersions = (label: string, versions: { readonly version: number; readonly minReader: number }) => {
  if (!Number.isInteger(versions.version) || versions.version < 1) {
    return Effect.fail(new StateStoreCorrupt({ path: label, detail: "meta.schema_version is missing or malformed" }))
  }
  if (versions.minReader > CURRENT_SCHEMA_VERSION) {
    return Effect.fail(new StateStoreNewer({ path: label, found: versions.version, supported: CURRENT_SCHEMA_VERSION }))
  }
  // A store is made at the baseline and no PostgreSQL migration exists yet: an older one lacks what this pcli writes.
  if (versions.version < PG_BASELINE_VERSION) {
    return Effect.fail(new StateStoreOlder({ path: label, found: versions.version, supported: CURRENT_SCHEMA_VERSION, remedy: PG_OLDER_REMEDY }))
  }
  return Effect.void
}

const PG_OLDER_REMEDY = "and this pcli has no PostgreSQL migration from it: use the pcli that made the store, nothing was written"

/**
 * Creates the schema at the baseline, or migrates it forward, under the advisory lock, re-reading
 * the version inside it (another process may have done the work while this one waited).
 */
const createOrMigrate = (sql: SqlClient.SqlClient, location: PgLocation, label: string) =>
  sql.withTransaction(
    Effect.gen(function* () {
      yield* migrationLock(sql, location.schema)
      const versions = yield* readVersions(sql, location.schema)
      if (versions !== undefined) return yield* checkVersions(label, versions)
      for (const statement of createStoreSql(location.schema)) yield* sql.unsafe(statement)
    })
  )

/**
 * A new store in `schema`: the principal roles, the baseline at the current version, and the guard
 * the database enforces (decisions.md 36), so a store a write creates is guarded as `state init`'s is.
 */
export const createStoreSql = (schema: string): ReadonlyArray<string> => [
  ...createRolesSql(),
  `CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`,
  `SET LOCAL search_path = ${quoteIdent(schema)}`,
  ...pgBaseline,
  `INSERT INTO meta (key, value) VALUES ('schema_version', '${PG_BASELINE_VERSION}'), ('min_reader_version', '${PG_BASELINE_VERSION}')`,
  ...guardSql(schema)
]

const sqlState = (e: { readonly cause?: unknown }) => String((e.cause as { code?: unknown } | undefined)?.code ?? "")

/** The store's schema refused this role: a role in neither principal group says so by name (decisions.md 36). */
const refusedRole = (sql: SqlClient.SqlClient, denied: SqlError.SqlError): Effect.Effect<never, PrincipalRoleMissing | SqlError.SqlError> =>
  Effect.flatMap(sql.unsafe<{ name: string; human: boolean; agent: boolean }>(ROLE_QUERY), ([role]): Effect.Effect<never, PrincipalRoleMissing | SqlError.SqlError> =>
    role !== undefined && !role.human && !role.agent ? Effect.fail(new PrincipalRoleMissing({ role: role.name })) : Effect.fail(denied)
  )

export interface PgStoreOpened {
  readonly sql: SqlClient.SqlClient
  /** False when a read found no store: the caller reads an empty one instead of creating it. */
  readonly exists: boolean
  readonly label: string
}

/**
 * Opens the pg store for `write` (created at the baseline when missing) or a read (never creates:
 * `exists` is false when there is no store). A store whose minimum reader is newer is refused.
 */
export const openPgStore = (location: PgLocation, write: boolean): Effect.Effect<PgStoreOpened, StateStoreError, Scope.Scope> =>
  Effect.gen(function* () {
    const label = pgStoreLabel(location.schema)
    const sql = yield* openPgClient(location, { onRetry: stderrRetry })
    const redacted = (e: { readonly message: string; readonly cause?: unknown }) =>
      new StateStoreIo({ path: label, detail: redactUrl(causeText(e), location.url) })
    const versions = yield* readVersions(sql, location.schema).pipe(
      Effect.catchTag("SqlError", (e) => (sqlState(e) === "42501" ? refusedRole(sql, e) : Effect.fail(e))),
      Effect.mapError((e) => (e instanceof PrincipalRoleMissing ? e : redacted(e)))
    )
    if (versions !== undefined) {
      yield* checkVersions(label, versions)
      return { sql, exists: true, label }
    }
    if (!write) return { sql, exists: false, label }
    yield* createOrMigrate(sql, location, label).pipe(Effect.catchTag("SqlError", (e) => Effect.fail(redacted(e))))
    return { sql, exists: true, label }
  })
