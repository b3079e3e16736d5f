// The embedded warehouse file opened READ_ONLY on the bin's worker (readOnlyWorker.ts): opened once
// (retried like any open while another process holds the file's lock), closed with the warehouse's
// scope, its statements read there.
import { Effect } from "effect"
import type { ReadOnlyWorker } from "./readOnlyClient"
import type { StatementFailed, StatementResult } from "./Warehouse"

/** Reads one statement's whole result on the worker. */
export type QueryOnWorker = (sql: string, fail: (error: unknown) => StatementFailed) => Effect.Effect<StatementResult, StatementFailed>

/** Opens `path` with `settings` on the worker; its query function, until the scope closes the file. */
export const openOnWorker = (worker: ReadOnlyWorker, path: string, settings: Readonly<Record<string, string>>, toFailure: (error: unknown) => StatementFailed) =>
  Effect.acquireRelease(
    Effect.tryPromise({ try: () => worker({ op: "open", path, settings }), catch: toFailure }).pipe(
      Effect.as<QueryOnWorker>((sql, fail) =>
        Effect.tryPromise({
          try: async () => {
            const reply = await worker({ op: "query", sql })
            return { columns: reply.columns ?? [], rows: (reply.rows ?? []) as StatementResult["rows"] }
          },
          catch: fail
        })
      )
    ),
    () => Effect.promise(() => worker({ op: "close" }).then(() => undefined, () => undefined))
  )
