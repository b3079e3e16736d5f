import type { DuckDBConnection, DuckDBInstance, DuckDBValueConverter, JS } from "@duckdb/node-api"
import * as NodeFs from "node:fs"
import * as os from "node:os"
import { FileSystem, Path } from "@effect/platform"
import { Context, Data, Effect, Layer, Ref, Schedule, Scope } from "effect"
import { forgetSnapshot, readSnapshot, writeSnapshot } from "./catalogSnapshot"
import { isOutOfMemoryMessage, makeMemoryCap, memoryLimitSteps } from "./memoryCap"
import { openOnWorker } from "./readOnlyOnWorker"
import { takeReadOnlyWorker } from "./readOnlyClient"
import { type RetryPolicy, retryTransient } from "./retry"
import { acquireDuckDbInstance, toFailure } from "./duckdbInstance"
import { StatementFailed, type StatementResult, Warehouse, type WarehouseService } from "./Warehouse"

/** Default embedded warehouse file, project-relative (decisions.md item 6). */
export const defaultEmbeddedPath = ".pcli/warehouse.duckdb"

const lockPattern = /could not set lock/i

/** Another process holds the embedded warehouse file; opening was retried, then given up. */
export class WarehouseLocked extends Data.TaggedError("WarehouseLocked")<{
  readonly path: string
  /** The holder's process id, when DuckDB names it. */
  readonly pid?: number
  readonly attempts: number
}> {
  readonly code = "warehouse-locked"
  override get message() {
    const holder = this.pid === undefined ? "" : ` (PID ${this.pid})`
    return `the embedded warehouse ${this.path} is locked by another process${holder}; gave up after ${this.attempts} attempts`
  }
}

/** Opening a locked file is retried this way: 5 attempts over about 3 s. */
export const defaultOpenRetry: RetryPolicy = { maxRetries: 4, baseDelayMillis: 200 }

/** Failures under a configured `memory_limit`: running out of memory says what to change. */
const failureUnder = (memoryLimit: string | undefined) =>
  memoryLimit === undefined
    ? toFailure
    : (error: unknown): StatementFailed => {
        const failure = toFailure(error)
        return isOutOfMemoryMessage(failure.detail)
          ? new StatementFailed({
              ...failure,
              detail: `${failure.detail}; memory_limit = ${memoryLimit} is set in pcli.toml: raise it, or remove it to let pcli raise the cap as models need`
            })
          : failure
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

/** DuckDB's value converter, taken once its module has loaded (it loads only when a warehouse opens). */
let jsConverter: DuckDBValueConverter<JS> | undefined

/**
 * Runs one SQL text and reads all its rows. `run` answers with the result already materialized,
 * so its chunks are read in place: fetching them one by one would cost a thread-pool round trip each.
 */
const readAll = async (connection: DuckDBConnection, sql: string): Promise<StatementResult> => {
  const result = await connection.run(sql)
  const converter = jsConverter ?? (jsConverter = (await import("@duckdb/node-api")).JSDuckDBValueConverter)
  const names = result.columnNames()
  const types = result.columnTypes()
  const rows: Array<Array<JS | null>> = []
  for (let i = 0, chunks = result.chunkCount; i < chunks; i++) for (const row of result.getChunk(i).convertRows(converter)) rows.push(row)
  return { columns: names.map((name, i) => ({ name, type: String(types[i] ?? "") })), rows }
}

const makeService = (instance: DuckDBInstance, path: string, fail: (error: unknown) => StatementFailed): DuckDbService => ({
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
      catch: fail
    })
})

/** DuckDB's answer to a ROLLBACK when the failed statement's transaction already ended (autocommit, or rolled back). */
const noTransactionPattern = /no transaction is active/i

/**
 * Ends whatever transaction a failed statement left open on `connection`; `false` when it could not
 * be ended. The ROLLBACK is a statement, and DuckDB allocates a few KiB under the cap to run it:
 * when the other lanes fill the cap (the moment a build runs out of memory) the ROLLBACK fails too
 * and the transaction stays open, aborted.
 */
const rollBack = (connection: DuckDBConnection): Promise<boolean> =>
  connection.run("ROLLBACK").then(
    () => true,
    (error: unknown) => noTransactionPattern.test(error instanceof Error ? error.message : String(error))
  )

/**
 * The ROLLBACK again while the other lanes free memory (their builds end within milliseconds): the
 * failed build's retry may run on another lane, and an open transaction here holds the tables it
 * created (the retry's `CREATE` would meet a write-write conflict). At most ~0.6 s.
 */
const rollBackPatiently = (connection: DuckDBConnection) =>
  Effect.promise(() => rollBack(connection)).pipe(
    Effect.repeat({ schedule: Schedule.exponential("5 millis"), until: (ended) => ended, times: 7 })
  )

/**
 * One connection as a warehouse: a failed statement rolls back whatever transaction it left open.
 * When that ROLLBACK still fails (out of memory, above), the connection is replaced by a fresh one and
 * closed, which rolls its transaction back without running a statement; otherwise the lane's next
 * build, a memory retry first, would fail with "Current transaction is aborted (please ROLLBACK)".
 * `current` holds the lane's connection, the one the session closes.
 */
const pinnedWarehouse = (
  instance: DuckDBInstance,
  current: Ref.Ref<DuckDBConnection>,
  fail: (error: unknown) => StatementFailed
): WarehouseService => {
  const replace = (stale: DuckDBConnection) =>
    Effect.flatMap(
      Effect.promise(() => instance.connect().then((fresh) => fresh, () => undefined)),
      // A connection that cannot open leaves the stale one: its next statement reports what is wrong.
      (fresh) => (fresh === undefined ? Effect.void : Effect.zipRight(Ref.set(current, fresh), Effect.sync(() => stale.closeSync())))
    )
  return {
    kind: "embedded",
    pinned: true,
    execute: (sql) =>
      Effect.flatMap(Ref.get(current), (connection) =>
        Effect.tryPromise({ try: () => readAll(connection, sql), catch: fail }).pipe(
          Effect.tapError(() => Effect.flatMap(rollBackPatiently(connection), (ended) => (ended ? Effect.void : replace(connection))))
        )
      )
  }
}

const session = (instance: DuckDBInstance, fail: (error: unknown) => StatementFailed): Effect.Effect<WarehouseService, StatementFailed, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.flatMap(Effect.tryPromise({ try: () => instance.connect(), catch: toFailure }), (connection) => Ref.make(connection)),
    (current) => Effect.flatMap(Ref.get(current), (connection) => Effect.sync(() => connection.closeSync()))
  ).pipe(Effect.map((current) => pinnedWarehouse(instance, current, fail)))


/**
 * Opens the warehouse file, retrying while another process holds its lock (`policy`, each
 * retry logged like the runner's); a lock that outlasts the retries is `WarehouseLocked`.
 */
const openLocked = <A>(path: string, policy: RetryPolicy, acquire: Effect.Effect<A, StatementFailed, Scope.Scope>) => {
  const holder = (e: StatementFailed) => /\(PID (\d+)\)/.exec(e.detail)?.[1]
  return retryTransient(acquire, {
    policy,
    subject: `embedded warehouse ${path}`,
    isTransient: (e) => lockPattern.test(e.detail),
    describe: (e) => `locked by another process${holder(e) === undefined ? "" : ` (PID ${holder(e)})`}`
  }).pipe(
    Effect.catchIf(
      (e) => lockPattern.test(e.detail),
      (e) => {
        const pid = holder(e)
        return Effect.fail(
          new WarehouseLocked({ path, attempts: policy.maxRetries + 1, ...(pid === undefined ? {} : { pid: Number(pid) }) })
        )
      }
    )
  )
}

export interface EmbeddedOptions {
  /** Retries of opening a locked file (default `defaultOpenRetry`). */
  readonly openRetry?: RetryPolicy
  /**
   * DuckDB's `memory_limit`, fixed for the warehouse's lifetime. Without it a file's cap starts at
   * `memoryLimitSteps[0]` and rises as builds run out of memory (`Warehouse.memory`).
   */
  readonly memoryLimit?: string
  /** DuckDB's `threads` (default `defaultThreads()`). */
  readonly threads?: number
  /**
   * Open the file on first use (or `open`) rather than when the layer is built: a run that
   * reuses every model never loads DuckDB. Its `open` reports a lock as `WarehouseLocked`.
   */
  readonly lazy?: boolean
  /**
   * Open the file READ_ONLY (DuckDB's shared lock; nothing written, no catalog snapshot kept): a
   * read that is not a mutation (`audit --verify`'s witness), which must never change the file.
   */
  readonly readOnly?: boolean
}

/**
 * DuckDB threads per query: the cores shared among the runner's 4 lanes (at least one). pcli
 * runs models side by side, so a query's own worker threads mostly hand small tables back and
 * forth; on 2 cores they doubled the CPU of a 10k-row model.
 */
export const defaultThreads = (): number => Math.max(1, Math.floor(os.availableParallelism() / 4))

/**
 * What DuckDB's allocator may keep after a task, when pcli chooses the cap. A bulk free past 1MB flushes:
 * at 32MB it kept ~40 MB more of a 2,000-model run (performance.md "Run RSS: the allocator's bulk flush").
 */
export const allocatorSettings = { allocator_flush_threshold: "8MB", allocator_bulk_deallocation_flush_threshold: "1MB" } as const

/**
 * The log size past which the lanes checkpoint: a quarter of DuckDB's own 16 MiB. Under the small
 * starting cap, tables committed but not checkpointed spill to `.tmp` (zstd) and are read back, and
 * the last stretch is checkpointed at close on the main thread (performance.md "Run at 1,000 models, third pass").
 */
const checkpointThresholdBytes = 4 * 1024 * 1024

/**
 * The embedded warehouse: one DuckDB instance for the layer's lifetime, a fresh connection
 * per statement (so concurrent models never share transaction state), or one connection
 * for a whole `session` (the runner keeps one per concurrency lane). `execute` accepts
 * several `;`-separated statements and returns the last result.
 */
export const layer = (
  path: string,
  options: EmbeddedOptions = {}
): Layer.Layer<Warehouse | DuckDb, StatementFailed | WarehouseLocked, FileSystem.FileSystem | Path.Path> =>
  Layer.scopedContext(
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const readOnly = options.readOnly === true
      if (path !== ":memory:" && !readOnly) {
        const dir = (yield* Path.Path).dirname(path)
        yield* fs
          .makeDirectory(dir, { recursive: true })
          .pipe(Effect.mapError((e) => new StatementFailed({ detail: `cannot create ${dir}: ${e.message}`, transient: false })))
      }
      const isFile = path !== ":memory:"
      // A read-only open neither writes the catalog snapshot nor forgets it: the file does not change.
      const keepsSnapshot = isFile && !readOnly
      // DuckDB caches every table it wrote up to its cap, so a run's memory would grow with its models:
      // a file starts at a small cap that rises as builds need. An in-memory database cannot spill its
      // tables, so it keeps DuckDB's own default.
      const adaptive = isFile && options.memoryLimit === undefined
      const memoryLimit = adaptive ? memoryLimitSteps[0] : options.memoryLimit
      const settings: Record<string, string> = memoryLimit === undefined ? {} : { memory_limit: memoryLimit }
      if (isFile) settings["threads"] = String(options.threads ?? defaultThreads())
      // DuckDB's own allocator (jemalloc) keeps up to 128 MiB freed after a task; under pcli's cap that was a third of a run's RSS.
      if (adaptive) Object.assign(settings, allocatorSettings)
      if (readOnly) settings["access_mode"] = "READ_ONLY"
      const fail = failureUnder(options.memoryLimit)
      const scope = yield* Effect.scope
      const relationsAtClose = yield* Ref.make<ReadonlyArray<string> | undefined>(undefined)
      // Runs after DuckDB has closed the file (finalizers run in reverse order).
      if (keepsSnapshot) {
        yield* Effect.addFinalizer(() =>
          Effect.flatMap(Ref.get(relationsAtClose), (relations) => Effect.sync(() => relations !== undefined && writeSnapshot(path, relations)))
        )
      }
      const opened = yield* Effect.cached(
        Effect.gen(function* () {
          if (keepsSnapshot) forgetSnapshot(path)
          const instance = yield* openLocked(path, options.openRetry ?? defaultOpenRetry, acquireDuckDbInstance(path, settings))
          // Runs before DuckDB closes: the catalog the snapshot records.
          if (keepsSnapshot) {
            yield* Effect.addFinalizer(() =>
              Effect.tryPromise(async () => {
                const connection = await instance.connect()
                try {
                  return (await readAll(connection, relationsQuery)).rows.map((r) => `${String(r[0])}.${String(r[1])}`.toLowerCase())
                } finally {
                  connection.closeSync()
                }
              }).pipe(
                Effect.flatMap((relations) => Ref.set(relationsAtClose, relations)),
                Effect.ignore
              )
            )
          }
          return instance
        }).pipe(Scope.extend(scope))
      )
      // A file opened READ_ONLY for the witness (audit --verify) is read on the worker the bin started, when it did.
      const worker = readOnly && isFile ? takeReadOnlyWorker() : undefined
      const onWorker = worker === undefined ? undefined : yield* Effect.cached(openLocked(path, options.openRetry ?? defaultOpenRetry, openOnWorker(worker, path, settings, toFailure)).pipe(Scope.extend(scope)))
      if (options.lazy !== true) yield* (onWorker === undefined ? Effect.asVoid(opened) : Effect.asVoid(onWorker))
      // Lazy or not, the worker starts opening the file now, while the command builds its other layers and walks
      // the chain: the first statement waits for this same open (its outcome, a lock included, is cached).
      else if (onWorker !== undefined) yield* Effect.forkIn(Effect.ignore(onWorker), scope)
      /** A lock met on a lazy first use, where only `StatementFailed` can be reported. */
      const lockFailure = (e: WarehouseLocked) => Effect.fail(new StatementFailed({ detail: e.message, transient: false }))
      const instance = opened.pipe(Effect.catchTag("WarehouseLocked", lockFailure))
      const duck = lazyService(instance, path, fail)
      const walPath = `${path}.wal`
      const log = {
        // A synchronous stat: asked after every model, and an async one waits behind DuckDB's queries on libuv's threads.
        due: Effect.try(() => (NodeFs.statSync(walPath, { throwIfNoEntry: false })?.size ?? 0) > checkpointThresholdBytes).pipe(
          Effect.orElseSucceed(() => false)
        ),
        checkpoint: duck.withConnection((connection) => connection.run("CHECKPOINT")).pipe(Effect.asVoid)
      }
      return Context.make(DuckDb, duck).pipe(
        Context.add(Warehouse, {
          kind: "embedded" as const,
          execute: (sql: string) =>
            onWorker === undefined
              ? duck.withConnection((connection) => readAll(connection, sql))
              : Effect.flatMap(Effect.catchTag(onWorker, "WarehouseLocked", lockFailure), (query) => query(sql, fail)),
          session: Effect.flatMap(instance, (i) => session(i, fail)),
          open: onWorker === undefined ? Effect.asVoid(opened) : Effect.asVoid(onWorker),
          ...(adaptive ? { memory: yield* makeMemoryCap((sql) => duck.withConnection((connection) => connection.run(sql)).pipe(Effect.asVoid)) } : {}),
          ...(isFile ? { log, knownRelations: Effect.sync(() => readSnapshot(path)) } : {})
        })
      )
    })
  )

const relationsQuery = "SELECT table_schema, table_name FROM information_schema.tables"

/** `makeService` over an instance opened on first use. */
const lazyService = (instance: Effect.Effect<DuckDBInstance, StatementFailed>, path: string, fail: (error: unknown) => StatementFailed): DuckDbService => ({
  path,
  withConnection: (use) => Effect.flatMap(instance, (i) => makeService(i, path, fail).withConnection(use))
})
