import { FileSystem, Path } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Scope } from "effect"
import { type StateStoreError, StateStoreCorrupt, StateStoreIo, StateStoreNewer, StateStoreOlder } from "./errors"
import { CURRENT_SCHEMA_VERSION, migrations } from "./migrations"

/**
 * How a command uses the store. `read`: never writes a current store, migrates an older one,
 * sees a missing one as empty. `write`: creates and migrates. `server`: strictly read-only.
 */
export type StateStoreMode = "read" | "write" | "server"

export interface StateStoreInfo {
  readonly path: string
  readonly mode: StateStoreMode
  /** False when a read command found no store and works on an empty in-memory one. */
  readonly persisted: boolean
  readonly schemaVersion: number
}

export class StateStore extends Context.Tag("pcli/StateStore")<StateStore, StateStoreInfo>() {}

const sqliteModule = Effect.promise(() => import("@effect/sql-sqlite-node"))

const openClient = (filename: string, readonly: boolean) =>
  Effect.flatMap(sqliteModule, ({ SqliteClient }) =>
    // A read-only handle must not issue `journal_mode = WAL`; the mode is persisted in the file.
    Layer.build(SqliteClient.layer({ filename, readonly, disableWAL: readonly })).pipe(
      Effect.map((ctx) => Context.get(ctx, SqlClient.SqlClient)),
      // better-sqlite3 throws from its constructor (missing directory, permissions, not a file).
      Effect.catchAllDefect((d) => Effect.fail(new StateStoreIo({ path: filename, detail: String((d as Error)?.message ?? d) }))),
      Effect.mapError((e) => (e instanceof StateStoreIo ? e : new StateStoreIo({ path: filename, detail: String(e) })))
    )
  )

/** Schema version of an existing file: 0 for an empty SQLite file, refused if not ours. */
const probeVersion = (path: string) =>
  Effect.scoped(
    Effect.gen(function* () {
      const sql = yield* openClient(path, true)
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
    })
  ).pipe(
    Effect.catchTag("SqlError", (e) =>
      Effect.fail(new StateStoreCorrupt({ path, detail: String((e.cause as Error | undefined)?.message ?? e.message) }))
    )
  )

/** Runs every migration past `from` in one transaction and records the new version. */
const migrate = (sql: SqlClient.SqlClient, from: number, path: string) =>
  sql
    .withTransaction(
      Effect.gen(function* () {
        for (const m of migrations) {
          if (m.version <= from) continue
          for (const statement of m.statements) yield* sql.unsafe(statement)
        }
        yield* sql`INSERT INTO meta (key, value) VALUES ('schema_version', ${String(CURRENT_SCHEMA_VERSION)})
                   ON CONFLICT (key) DO UPDATE SET value = excluded.value`
      })
    )
    .pipe(Effect.mapError((e) => new StateStoreIo({ path, detail: `migration failed: ${String((e.cause as Error | undefined)?.message ?? e.message)}` })))

const open = (
  path: string,
  mode: StateStoreMode
): Effect.Effect<readonly [SqlClient.SqlClient, StateStoreInfo], StateStoreError, FileSystem.FileSystem | Path.Path | Scope.Scope> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const pathApi = yield* Path.Path
    const exists = yield* fs.exists(path).pipe(Effect.orElseSucceed(() => false))
    const info = (persisted: boolean): StateStoreInfo => ({ path, mode, persisted, schemaVersion: CURRENT_SCHEMA_VERSION })
    if (!exists) {
      if (mode !== "write") {
        const sql = yield* openClient(":memory:", false)
        yield* migrate(sql, 0, path)
        return [sql, info(false)] as const
      }
      yield* fs
        .makeDirectory(pathApi.dirname(path), { recursive: true })
        .pipe(Effect.mapError((e) => new StateStoreIo({ path, detail: e.message })))
      const sql = yield* openClient(path, false)
      yield* migrate(sql, 0, path)
      return [sql, info(true)] as const
    }
    const version = yield* probeVersion(path)
    if (version > CURRENT_SCHEMA_VERSION) {
      return yield* new StateStoreNewer({ path, found: version, supported: CURRENT_SCHEMA_VERSION })
    }
    if (version === CURRENT_SCHEMA_VERSION && mode !== "write") {
      return [yield* openClient(path, true), info(true)] as const
    }
    if (mode === "server") {
      return yield* new StateStoreOlder({ path, found: version, supported: CURRENT_SCHEMA_VERSION })
    }
    const sql = yield* openClient(path, false)
    if (version < CURRENT_SCHEMA_VERSION) yield* migrate(sql, version, path)
    return [sql, info(true)] as const
  })

/** Opens the store at `path` for `mode`, providing both the SqlClient and the store's info. */
export const layer = (path: string, mode: StateStoreMode) =>
  Layer.scopedContext(
    Effect.map(open(path, mode), ([sql, info]) => Context.make(SqlClient.SqlClient, sql).pipe(Context.add(StateStore, info)))
  )
