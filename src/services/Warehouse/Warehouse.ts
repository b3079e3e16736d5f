import { Context, Data, type Effect, type Scope } from "effect"
import type { WarehouseLocked } from "./embedded"
import type { MemoryCap } from "./memoryCap"

export interface ResultColumn {
  readonly name: string
  readonly type: string
}

export interface StatementResult {
  readonly columns: ReadonlyArray<ResultColumn>
  readonly rows: ReadonlyArray<ReadonlyArray<unknown>>
}

/**
 * A statement the warehouse refused or could not finish. `transient` drives the runner's
 * classified retry: lock contention, I/O busy, HTTP 429/5xx, connection resets are transient;
 * SQL and permission errors, refused connections and unknown hosts are not.
 */
export class StatementFailed extends Data.TaggedError("StatementFailed")<{
  readonly detail: string
  readonly transient: boolean
  readonly state?: string
  /** From a remote `Retry-After` answer: how long the warehouse asked us to wait. */
  readonly retryAfterMillis?: number
}> {
  readonly code = "statement-failed"
  override get message() {
    return this.state === undefined ? this.detail : `${this.detail} (state ${this.state})`
  }
}

/** The execution target models run on: the embedded DuckDB or a remote SQL warehouse. */
export interface WarehouseService {
  readonly kind: "embedded" | "remote"
  /** Runs one SQL statement and reads its whole result. */
  readonly execute: (sql: string) => Effect.Effect<StatementResult, StatementFailed>
  /**
   * The same warehouse bound to one connection for the scope (embedded only): its statements run
   * in order on that connection, and a failed one rolls back any transaction it left open.
   */
  readonly session?: Effect.Effect<WarehouseService, StatementFailed, Scope.Scope>
  /**
   * The embedded warehouse's write-ahead log: `due` once it has outgrown DuckDB's checkpoint
   * threshold; `checkpoint` writes it into the database file (call it with no transaction open).
   */
  readonly log?: { readonly due: Effect.Effect<boolean>; readonly checkpoint: Effect.Effect<void, StatementFailed> }
  /** Opens a warehouse that opens on first use (embedded, lazy), reporting a held lock as such. */
  readonly open?: Effect.Effect<void, StatementFailed | WarehouseLocked>
  /**
   * Relations (`schema.table`, lower case) known without opening the warehouse: those pcli saw
   * when it last closed the file, while nothing has touched it since; undefined when unknown.
   */
  readonly knownRelations?: Effect.Effect<ReadonlySet<string> | undefined>
  /** True on a `session`'s warehouse: a transaction may span several `execute` calls. */
  readonly pinned?: boolean
  /** The embedded warehouse's memory cap when pcli chooses it (no `memory_limit` configured): it rises as builds need. */
  readonly memory?: MemoryCap
}

export class Warehouse extends Context.Tag("pcli/Warehouse")<Warehouse, WarehouseService>() {}
