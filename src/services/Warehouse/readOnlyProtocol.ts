// What the main thread and the read-only DuckDB worker (readOnlyWorker.ts) say to each other.

export type ReaderRequest =
  | { readonly id: number; readonly op: "open"; readonly path: string; readonly settings: Readonly<Record<string, string>> }
  | { readonly id: number; readonly op: "query"; readonly sql: string }
  | { readonly id: number; readonly op: "close" }

/** A statement's columns and rows (values as @duckdb/node-api's JS converter gives them), or DuckDB's message. */
export type ReaderReply =
  | { readonly ok: true; readonly columns?: ReadonlyArray<{ readonly name: string; readonly type: string }>; readonly rows?: ReadonlyArray<ReadonlyArray<unknown>> }
  | { readonly ok: false; readonly message: string }

/** Where the bin leaves the worker it started for the bundle (globalThis). */
export const READ_ONLY_WORKER_KEY = Symbol.for("pcli/duckdbReadOnlyWorker")

/** The worker's bundle, beside the bin. */
export const READ_ONLY_WORKER_FILE = "pcli-duckdb-reader.cjs"
