import { FileSystem, Path } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { Context, Effect, ExecutionStrategy, Exit, Layer, Scope } from "effect"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { type StateStoreError, StateStoreCorrupt, StateStoreIo, StateStoreNewer, StateStoreOlder } from "./errors"
import type { PgLocation } from "./pgStore"
import { CURRENT_SCHEMA_VERSION } from "./schemaVersion"

/**
 * How a command uses the store. `read`: never writes a current store, migrates an older one,
 * sees a missing one as empty. `write`: creates and migrates. `server`: strictly read-only.
 */
export type StateStoreMode = "read" | "write" | "server"

export interface StateStoreInfo {
  /** The SQLite file, or for PostgreSQL a label naming the schema (never the URL, a secret). */
  readonly path: string
  /** `postgres` when `[state] url` / `PCLI_STATE_URL` names a PostgreSQL store (decision 36). */
  readonly backend: "sqlite" | "postgres"
  readonly mode: StateStoreMode
  /** False when a read command found no store and works on an empty in-memory one. */
  readonly persisted: boolean
  readonly schemaVersion: number
}

export class StateStore extends Context.Tag("pcli/StateStore")<StateStore, StateStoreInfo>() {}

const sqliteModule = Effect.promise(() => {
  // better-sqlite3 reads this once when its addon loads: `file:` names may then carry `?immutable=1`.
  process.env.SQLITE_USE_URI = "1"
  return import("@effect/sql-sqlite-node")
})

/**
 * A read-only open of a WAL store creates `-wal` and `-shm` beside it and cannot remove them. With no
 * `-wal` present every committed page is in the main file, so the read opens it `immutable` (no lock,
 * no side files); while a writer's `-wal` exists the read joins it the ordinary way (the files exist).
 */
export const readTarget = (filename: string) =>
  filename === ":memory:" || existsSync(`${filename}-wal`) ? filename : `${pathToFileURL(filename).href}?immutable=1`

const sqliteInfo = (path: string, mode: StateStoreMode, persisted: boolean): StateStoreInfo => ({ path, backend: "sqlite", mode, persisted, schemaVersion: CURRENT_SCHEMA_VERSION })

const storeContext = (sql: SqlClient.SqlClient, info: StateStoreInfo) => Context.make(SqlClient.SqlClient, sql).pipe(Context.add(StateStore, info))

const openClient = (filename: string, readonly: boolean) =>
  Effect.flatMap(sqliteModule, ({ SqliteClient }) =>
    // A read-only handle must not issue `journal_mode = WAL`; the mode is persisted in the file.
    Layer.build(SqliteClient.layer({ filename: readonly ? readTarget(filename) : filename, readonly, disableWAL: readonly })).pipe(
      Effect.map((ctx) => Context.get(ctx, SqlClient.SqlClient)),
      // Sorts and temp B-trees (ORDER BY over an index on other columns) otherwise open a temp file per query (~0.6 ms).
      Effect.tap((sql) => sql.unsafe("PRAGMA temp_store = MEMORY")),
      // better-sqlite3 throws from its constructor (missing directory, permissions, not a file).
      Effect.catchAllDefect((d) => Effect.fail(new StateStoreIo({ path: filename, detail: String((d as Error)?.message ?? d) }))),
      Effect.mapError((e) => (e instanceof StateStoreIo ? e : new StateStoreIo({ path: filename, detail: String(e) })))
    )
  )

declare const PCLI_BUILD: string

/** The file name, beside the bundle, of an empty store at the current version that the build makes with these migrations. */
export const EMPTY_STORE_IMAGE = "pcli-empty-state.sqlite"

/** In the built bin only: the build's empty store, if it is there. */
const emptyStoreImage = (): string | undefined => {
  if (typeof PCLI_BUILD !== "string") return undefined
  const image = join(__dirname, EMPTY_STORE_IMAGE)
  return existsSync(image) ? image : undefined
}

/** Schema version of an existing file, read through `sql`: 0 for an empty SQLite file, refused if not ours. */
const probeVersion = (sql: SqlClient.SqlClient, path: string) =>
  Effect.gen(function* () {
    const tables = yield* sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'table'`
    if (tables.length === 0) return 0
    if (!tables.some((t) => t.name === "meta")) {
      return yield* new StateStoreCorrupt({ path, detail: "not a pcli state store (no meta table)" })
    }
    const rows = yield* sql<{ value: string }>`SELECT value FROM meta WHERE key = 'schema_version'`
    const version = Number(rows[0]?.value)
    if (!Number.isInteger(version) || version < 0) {
      return yield* new StateStoreCorrupt({ path, detail: "meta.schema_version is missing or malformed" })
    }
    return version
  }).pipe(
    Effect.catchTag("SqlError", (e) => Effect.fail(new StateStoreCorrupt({ path, detail: String((e.cause as Error | undefined)?.message ?? e.message) })))
  )

/** Runs every migration past `from` in one transaction and records the new version. The migrations load only then. */
const migrate = (sql: SqlClient.SqlClient, from: number, path: string) =>
  sql
    .withTransaction(
      Effect.gen(function* () {
        const { migrations } = yield* Effect.promise(() => import("./migrations"))
        for (const m of migrations) {
          if (m.version <= from) continue
          for (const statement of m.statements) yield* sql.unsafe(statement)
          if (m.run !== undefined) yield* m.run(sql)
        }
        yield* sql`INSERT INTO meta (key, value) VALUES ('schema_version', ${String(CURRENT_SCHEMA_VERSION)})
                   ON CONFLICT (key) DO UPDATE SET value = excluded.value`
      })
    )
    .pipe(Effect.mapError((e) => new StateStoreIo({ path, detail: `migration failed: ${String((e.cause as Error | undefined)?.message ?? e.message)}` })))

/** Where the store is and whether its directory may be created (only pcli's own default layout). */
export interface StateLocation {
  readonly path: string
  /** False for an explicit `--state-path`: a missing directory there is a typo, not a request. */
  readonly createParent: boolean
  /** A PostgreSQL store: it replaces the file at `path` (decision 36). */
  readonly pg?: PgLocation | undefined
}

/** An empty store at the current version to read from when there is none: the build's image, or one migrated in memory. */
const emptyStore = (path: string) =>
  Effect.gen(function* () {
    const image = emptyStoreImage()
    if (image !== undefined) return yield* openClient(image, true)
    const sql = yield* openClient(":memory:", false)
    yield* migrate(sql, 0, path)
    return sql
  })

/**
 * The PostgreSQL store (decision 36): created at the baseline by a write, never by a read. A read of
 * a store not created yet reads an empty SQLite one, as a read of a missing SQLite file does.
 */
const openPostgres = (pg: PgLocation, mode: StateStoreMode) =>
  Effect.gen(function* () {
    const { openPgStore } = yield* Effect.promise(() => import("./pgStore"))
    const opened = yield* openPgStore(pg, mode === "write")
    const info: StateStoreInfo = { path: opened.label, backend: "postgres", mode, persisted: opened.exists, schemaVersion: CURRENT_SCHEMA_VERSION }
    if (opened.exists) return [opened.sql, info] as const
    return [yield* emptyStore(opened.label), info] as const
  })

const open = (
  location: StateLocation,
  mode: StateStoreMode
): Effect.Effect<readonly [SqlClient.SqlClient, StateStoreInfo], StateStoreError, FileSystem.FileSystem | Path.Path | Scope.Scope> =>
  Effect.gen(function* () {
    if (location.pg !== undefined) return yield* openPostgres(location.pg, mode)
    const fs = yield* FileSystem.FileSystem
    const pathApi = yield* Path.Path
    const path = location.path
    const stat = yield* fs.stat(path).pipe(Effect.option)
    if (stat._tag === "Some" && stat.value.type === "Directory") {
      return yield* new StateStoreIo({ path, detail: "is a directory; --state-path names the store file (e.g. state.sqlite)" })
    }
    const exists = stat._tag === "Some"
    const info = (persisted: boolean) => sqliteInfo(path, mode, persisted)
    if (!exists) {
      if (mode !== "write") {
        // Read modes never write (a current store is opened read-only), so the build's empty image,
        // opened read-only, reads exactly like a freshly migrated in-memory store, without migrating one.
        return [yield* emptyStore(path), info(false)] as const
      }
      const parent = pathApi.dirname(path)
      if (!location.createParent && !(yield* fs.exists(parent).pipe(Effect.orElseSucceed(() => false)))) {
        return yield* new StateStoreIo({ path, detail: `directory ${parent} does not exist; create it first` })
      }
      yield* fs.makeDirectory(parent, { recursive: true }).pipe(Effect.mapError((e) => new StateStoreIo({ path, detail: e.message })))
      const sql = yield* openClient(path, false)
      yield* migrate(sql, 0, path)
      return [sql, info(true)] as const
    }
    // The probe's read-only handle is the one a read of a current store keeps (one open, not two); else it is closed first.
    const probeScope = yield* Scope.fork(yield* Effect.scope, ExecutionStrategy.sequential)
    const reader = yield* openClient(path, true).pipe(Scope.extend(probeScope))
    const version = yield* probeVersion(reader, path)
    if (version > CURRENT_SCHEMA_VERSION) {
      return yield* new StateStoreNewer({ path, found: version, supported: CURRENT_SCHEMA_VERSION })
    }
    if (version === CURRENT_SCHEMA_VERSION && mode !== "write") return [reader, info(true)] as const
    yield* Scope.close(probeScope, Exit.void)
    if (mode === "server") {
      return yield* new StateStoreOlder({ path, found: version, supported: CURRENT_SCHEMA_VERSION })
    }
    const sql = yield* openClient(path, false)
    if (version < CURRENT_SCHEMA_VERSION) yield* migrate(sql, version, path)
    return [sql, info(true)] as const
  })

/**
 * A write handle on a SQLite store a read in this process already opened at the current version (a read
 * migrates an older one): no second probe. Brief's cursor; any other location opens as `layer(…, "write")`.
 */
export const currentStoreWriteLayer = (location: StateLocation) =>
  location.pg !== undefined
    ? layer(location, "write")
    : Layer.scopedContext(Effect.map(openClient(location.path, false), (sql) => storeContext(sql, sqliteInfo(location.path, "write", true))))

/** Opens the store at `path` for `mode`, providing both the SqlClient and the store's info. */
export const layer = (location: string | StateLocation, mode: StateStoreMode) =>
  Layer.scopedContext(
    Effect.map(open(typeof location === "string" ? { path: location, createParent: true } : location, mode), ([sql, info]) => storeContext(sql, info))
  )
