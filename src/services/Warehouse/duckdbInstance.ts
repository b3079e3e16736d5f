// A DuckDB instance and DuckDB's failures as pcli's, apart from embedded.ts (the warehouse service): the SQL reader's,
// lineage's and the determinism scan's in-memory parsers need only these, not the warehouse's module graph.
import { Effect } from "effect"
import { StatementFailed } from "./Warehouse"

/** Messages DuckDB uses for conditions that go away on their own (locks, busy I/O, write conflicts). */
const transientPatterns = [
  /could not set lock/i,
  /conflict/i,
  /resource temporarily unavailable/i,
  /device or resource busy/i,
  /database is locked/i
]

export const isTransientDuckDbMessage = (message: string): boolean => transientPatterns.some((p) => p.test(message))

/** A DuckDB error as a failed statement: its first line, transient when DuckDB's message says so. */
export const toFailure = (error: unknown): StatementFailed => {
  const detail = error instanceof Error ? error.message : String(error)
  return new StatementFailed({ detail: detail.split("\n")[0] ?? detail, transient: isTransientDuckDbMessage(detail) })
}

/** Opens (creating if needed) a DuckDB database; DuckDB's module loads only here. */
export const acquireDuckDbInstance = (path: string, settings: Record<string, string> = {}) =>
  Effect.acquireRelease(
    Effect.tryPromise({
      try: async () => {
        const { DuckDBInstance } = await import("@duckdb/node-api")
        return DuckDBInstance.create(path, settings)
      },
      catch: toFailure
    }),
    (instance) => Effect.sync(() => instance.closeSync())
  )
