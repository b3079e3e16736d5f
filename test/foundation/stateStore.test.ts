import { NodeContext } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { CURRENT_SCHEMA_VERSION } from "../../src/services/StateStore/migrations"
import * as StateStore from "../../src/services/StateStore/StateStore"
import { makeProject } from "../support/cli"
import { readSchemaVersion, setSchemaVersion, writeStoreAtVersion } from "../support/stateStore"

const withStore = <A, E>(path: string, mode: StateStore.StateStoreMode, body: Effect.Effect<A, E, SqlClient.SqlClient | StateStore.StateStore>) =>
  body.pipe(Effect.provide(StateStore.layer(path, mode).pipe(Layer.provide(NodeContext.layer))))

const info = Effect.flatMap(StateStore.StateStore, (s) => Effect.succeed(s))

describe("StateStore", () => {
  it.effect("a write command creates the store at the current version", () =>
    Effect.gen(function* () {
      const path = join(makeProject(), "models", ".pcli-state.sqlite")
      const store = yield* withStore(path, "write", info)
      expect(store.persisted).toBe(true)
      expect(existsSync(path)).toBe(true)
      expect(yield* readSchemaVersion(path)).toBe(CURRENT_SCHEMA_VERSION)
    })
  )

  it.effect("a read command on a missing store sees it empty and creates nothing", () =>
    Effect.gen(function* () {
      const path = join(makeProject(), "models", ".pcli-state.sqlite")
      const rows = yield* withStore(
        path,
        "read",
        Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT count(*) AS n FROM ledger`)
      )
      expect(rows[0]).toEqual({ n: 0 })
      expect(existsSync(path)).toBe(false)
    })
  )

  it.effect("a read command leaves a current store byte-identical with the same mtime", () =>
    Effect.gen(function* () {
      const path = join(makeProject(), "state.sqlite")
      yield* withStore(path, "write", Effect.flatMap(SqlClient.SqlClient, (sql) => sql`INSERT INTO meta (key, value) VALUES ('probe', 'x')`))
      const before = readFileSync(path)
      const mtime = statSync(path).mtimeMs
      yield* withStore(path, "read", Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT * FROM ledger`))
      expect(readFileSync(path).equals(before)).toBe(true)
      expect(statSync(path).mtimeMs).toBe(mtime)
    })
  )

  it.effect("an older store is migrated forward by a read command", () =>
    Effect.gen(function* () {
      const path = join(makeProject(), "state.sqlite")
      yield* writeStoreAtVersion(path, CURRENT_SCHEMA_VERSION - 1)
      const store = yield* withStore(path, "read", info)
      expect(store.schemaVersion).toBe(CURRENT_SCHEMA_VERSION)
      expect(yield* readSchemaVersion(path)).toBe(CURRENT_SCHEMA_VERSION)
    })
  )

  it.effect("a newer store is refused by read, write and server modes with state-store-newer", () =>
    Effect.gen(function* () {
      const path = join(makeProject(), "state.sqlite")
      yield* writeStoreAtVersion(path, CURRENT_SCHEMA_VERSION)
      yield* setSchemaVersion(path, CURRENT_SCHEMA_VERSION + 5)
      const before = readFileSync(path)
      for (const mode of ["read", "write", "server"] as const) {
        const error = yield* Effect.flip(withStore(path, mode, info))
        expect(error._tag).toBe("StateStoreNewer")
        expect(error.message).toContain(`schema version ${CURRENT_SCHEMA_VERSION + 5}`)
        expect(error.message).toContain(`up to version ${CURRENT_SCHEMA_VERSION}`)
      }
      expect(readFileSync(path).equals(before)).toBe(true)
    })
  )

  it.effect("the server refuses an older store instead of writing it", () =>
    Effect.gen(function* () {
      const path = join(makeProject(), "state.sqlite")
      yield* writeStoreAtVersion(path, CURRENT_SCHEMA_VERSION - 1)
      const error = yield* Effect.flip(withStore(path, "server", info))
      expect(error._tag).toBe("StateStoreOlder")
      expect(yield* readSchemaVersion(path)).toBe(CURRENT_SCHEMA_VERSION - 1)
    })
  )

  it.effect("a file that is not a state store is refused as corrupt", () =>
    Effect.gen(function* () {
      const path = join(makeProject(), "state.sqlite")
      writeFileSync(path, "this is not a database, just some text that is long enough to have a header")
      const error = yield* Effect.flip(withStore(path, "read", info))
      expect(error._tag).toBe("StateStoreCorrupt")
      expect(error.code).toBe("state-store-corrupt")
    })
  )

  it.effect("the server opens a current store read-only", () =>
    Effect.gen(function* () {
      const path = join(makeProject(), "state.sqlite")
      yield* withStore(path, "write", info)
      const error = yield* Effect.flip(
        withStore(path, "server", Effect.flatMap(SqlClient.SqlClient, (sql) => sql`INSERT INTO meta (key, value) VALUES ('w', 'x')`))
      )
      expect(String(error)).toMatch(/readonly|read-only|SqlError/i)
    })
  )
})

describe("the bin's empty store image", () => {
  // Read commands on a project without a store open dist/pcli-empty-state.sqlite (made by the build
  // with these migrations) read-only: it must read exactly like a freshly migrated store.
  const image = join(__dirname, "../../dist", StateStore.EMPTY_STORE_IMAGE)
  const catalog = `SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name`

  it.effect("holds the schema and meta rows the migrations make, and no other rows", () =>
    Effect.gen(function* () {
      const fresh = yield* withStore(
        join(makeProject(), "missing.sqlite"),
        "read",
        Effect.flatMap(SqlClient.SqlClient, (sql) => Effect.all([sql.unsafe(catalog), sql`SELECT key, value FROM meta ORDER BY key`]))
      )
      const built = yield* Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const tables = yield* sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name != 'meta'`
        const counts = yield* Effect.forEach(tables, (t) => sql.unsafe<{ n: number }>(`SELECT count(*) AS n FROM "${t.name}"`))
        return [yield* sql.unsafe(catalog), yield* sql`SELECT key, value FROM meta ORDER BY key`, counts.map((rows) => rows[0]?.n)] as const
      }).pipe(Effect.provide(SqliteClient.layer({ filename: image, readonly: true, disableWAL: true })))
      expect(built[0]).toEqual(fresh[0])
      // The store id (migration 010) is random per store: the image carries one, as a fresh store does.
      const ids = (rows: ReadonlyArray<unknown>) => (rows as ReadonlyArray<{ key: string; value: string }>).map((r) => (r.key === "store_id" ? { key: r.key, value: /^[0-9a-f]{32}$/.test(r.value) } : r))
      expect(ids(built[1])).toEqual(ids(fresh[1]))
      expect(built[2].length).toBeGreaterThan(0)
      expect(built[2].every((n) => n === 0)).toBe(true)
    })
  )
})
