import type { DuckDBConnection, DuckDBInstance } from "@duckdb/node-api"
import { FileSystem, Path } from "@effect/platform"
import { Context, Effect, Layer } from "effect"
import { StatementFailed, type StatementResult, Warehouse } from "./Warehouse"

/** Default embedded warehouse file, project-relative (decisions.md item 6). */
export const defaultEmbeddedPath = ".pcli/warehouse.duckdb"

/** Messages DuckDB uses for conditions that go away on their own (locks, busy I/O, write conflicts). */
const transientPatterns = [
  /could not set lock/i,
  /conflict/i,
  /resource temporarily unavailable/i,
  /device or resource busy/i,
  /database is locked/i
]

export const isTransientDuckDbMessage = (message: string): boolean => transientPatterns.some((p) => p.test(message))

const toFailure = (error: unknown): StatementFailed => {
  const detail = error instanceof Error ? error.message : String(error)
  return new StatementFailed({ detail: detail.split("\n")[0] ?? detail, transient: isTransientDuckDbMessage(detail) })
}

/**
 * Direct access to the embedded DuckDB, for what `Warehouse.execute` cannot express:
 * Parquet COPY with pinned settings and reading files back. Only the embedded warehouse has it.
 */
export interface DuckDbService {
  /** The database file (or `:memory:`). */
  readonly path: string
  /** Runs `use` on a fresh connection that is closed afterwards (an open transaction rolls back). */
  readonly withConnection: <A>(use: (connection: DuckDBConnection) => Promise<A>) => Effect.Effect<A, StatementFailed>
}

export class DuckDb extends Context.Tag("pcli/DuckDb")<DuckDb, DuckDbService>() {}

const readAll = async (connection: DuckDBConnection, sql: string): Promise<StatementResult> => {
  const reader = await connection.runAndReadAll(sql)
  const names = reader.columnNames()
  const types = reader.columnTypes()
  return {
    columns: names.map((name, i) => ({ name, type: String(types[i] ?? "") })),
    rows: reader.getRowsJS()
  }
}

const makeService = (instance: DuckDBInstance, path: string): DuckDbService => ({
  path,
  withConnection: (use) =>
    Effect.tryPromise({
      try: async () => {
        const connection = await instance.connect()
        try {
          return await use(connection)
        } finally {
          connection.closeSync()
        }
      },
      catch: toFailure
    })
})

/** Opens (creating if needed) a DuckDB database; DuckDB's module loads only here. */
export const acquireDuckDbInstance = (path: string) =>
  Effect.acquireRelease(
    Effect.tryPromise({
      try: async () => {
        const { DuckDBInstance } = await import("@duckdb/node-api")
        return DuckDBInstance.create(path)
      },
      catch: toFailure
    }),
    (instance) => Effect.sync(() => instance.closeSync())
  )

/**
 * The embedded warehouse: one DuckDB instance for the layer's lifetime, a fresh connection
 * per statement (so concurrent models never share transaction state). `execute` accepts
 * several `;`-separated statements and returns the last result.
 */
export const layer = (
  path: string
): Layer.Layer<Warehouse | DuckDb, StatementFailed, FileSystem.FileSystem | Path.Path> =>
  Layer.scopedContext(
    Effect.gen(function* () {
      if (path !== ":memory:") {
        const fs = yield* FileSystem.FileSystem
        const dir = (yield* Path.Path).dirname(path)
        yield* fs
          .makeDirectory(dir, { recursive: true })
          .pipe(Effect.mapError((e) => new StatementFailed({ detail: `cannot create ${dir}: ${e.message}`, transient: false })))
      }
      const instance = yield* acquireDuckDbInstance(path)
      const duck = makeService(instance, path)
      return Context.make(DuckDb, duck).pipe(
        Context.add(Warehouse, {
          kind: "embedded" as const,
          execute: (sql: string) => duck.withConnection((connection) => readAll(connection, sql))
        })
      )
    })
  )

/** Runs one SQL text on a DuckDB connection and reads everything (shared with strategies). */
export const runAndRead = readAll
