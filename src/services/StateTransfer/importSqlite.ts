import { SqlClient } from "@effect/sql"
import { Context, Data, Effect, type Scope } from "effect"
import { GENESIS_HASH, rowHashFromValues, VERIFY_COLUMNS } from "../Ledger/chain"
import type { StateStoreError } from "../StateStore/errors"
import { ensureGuardedStore } from "../StateStore/pgInit"
import { migrationLock, openPgClient, type PgLocation } from "../StateStore/pgStore"
import { pgStoreLabel, redactUrl } from "../StateStore/redact"

/**
 * `pcli state migrate --to postgres://…` (decisions.md 36): a SQLite store copied into an empty
 * PostgreSQL store in one transaction, its ledger chain recomputed on arrival before the commit.
 */

export class MigrateTargetNotEmpty extends Data.TaggedError("MigrateTargetNotEmpty")<{ readonly target: string; readonly table: string; readonly rows: number }> {
  readonly code = "migrate-target-not-empty"
  override get message() {
    return `${this.target} is not empty (${this.table} holds ${this.rows} rows); migrate copies into an empty store only`
  }
}

export class MigrateChainBroken extends Data.TaggedError("MigrateChainBroken")<{ readonly target: string; readonly detail: string }> {
  readonly code = "migrate-chain-broken"
  override get message() {
    return `the ledger chain did not verify on arrival in ${this.target}: ${this.detail}; nothing was copied`
  }
}

export class MigrateFailed extends Data.TaggedError("MigrateFailed")<{ readonly target: string; readonly detail: string }> {
  readonly code = "migrate-failed"
  override get message() {
    return `copying into ${this.target} failed: ${this.detail}; nothing was copied`
  }
}

export type MigrateError = MigrateTargetNotEmpty | MigrateChainBroken | MigrateFailed | StateStoreError

/** Tables the store keeps for itself: the target's own version, identity and chain head are written, not copied. */
const STORE_OWN = new Set(["meta", "ledger_head"])

/** meta keys that travel with the history: the store's identity (a governed warehouse names it) and the brief cursor. */
const TRAVELLING_META = ["store_id", "last_brief_at"]

/** Bind parameters per INSERT stay under pg's 65,535. */
const MAX_PARAMS = 60000

export interface MigrateResult {
  readonly label: string
  readonly tables: ReadonlyArray<{ readonly table: string; readonly rows: number }>
  readonly ledgerRows: number
  readonly headHash: string
}

/**
 * A read of the SQLite source inside the target's transaction: @effect/sql keeps the open transaction
 * in the context for every client, so without this the source's query would run on the pg connection.
 */
const outsideTransaction = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.mapInputContext(effect, (context: Context.Context<R>) => Context.omit(SqlClient.TransactionConnection)(context) as Context.Context<R>)

const columnsOf = (source: SqlClient.SqlClient, table: string) =>
  Effect.map(source.unsafe<{ name: string }>(`SELECT name FROM pragma_table_info('${table.replace(/'/g, "''")}')`), (rows) => rows.map((r) => r.name))

/** The pg store's tables pcli copies, with the columns both sides have. */
const copyPlan = (source: SqlClient.SqlClient, target: SqlClient.SqlClient, schema: string) =>
  Effect.gen(function* () {
    const tables = yield* target<{ table_name: string }>`SELECT table_name FROM information_schema.tables WHERE table_schema = ${schema} AND table_type = 'BASE TABLE' ORDER BY table_name`
    const plan: Array<{ table: string; columns: ReadonlyArray<string> }> = []
    for (const { table_name } of tables) {
      if (STORE_OWN.has(table_name)) continue
      const sourceColumns = new Set(yield* outsideTransaction(columnsOf(source, table_name)))
      if (sourceColumns.size === 0) continue
      const targetColumns = yield* target<{ column_name: string }>`SELECT column_name FROM information_schema.columns WHERE table_schema = ${schema} AND table_name = ${table_name} ORDER BY ordinal_position`
      plan.push({ table: table_name, columns: targetColumns.map((c) => c.column_name).filter((c) => sourceColumns.has(c)) })
    }
    const references = yield* target<{ child: string; parent: string }>`SELECT c.relname AS child, p.relname AS parent
      FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN pg_class p ON p.oid = k.confrelid
      JOIN pg_namespace n ON n.oid = k.connamespace WHERE k.contype = 'f' AND n.nspname = ${schema}`
    return referencedFirst(plan, references)
  })

/** `plan` ordered so that a table comes after every table its foreign keys reference (the ledger first otherwise). */
const referencedFirst = <T extends { readonly table: string }>(plan: ReadonlyArray<T>, references: ReadonlyArray<{ readonly child: string; readonly parent: string }>) => {
  const pending = [...plan].sort((a, b) => (a.table === "ledger" ? -1 : b.table === "ledger" ? 1 : a.table.localeCompare(b.table)))
  const done = new Set<string>()
  const ordered: Array<T> = []
  while (pending.length > 0) {
    const ready = pending.findIndex((t) => references.every((r) => r.child !== t.table || r.parent === t.table || done.has(r.parent)))
    // A cycle of references cannot be ordered; the rest go as they are and the database judges them.
    const [next] = pending.splice(ready === -1 ? 0 : ready, 1)
    ordered.push(next!)
    done.add(next!.table)
  }
  return ordered
}

/** The first table of `plan` that holds a row in the target, if any. */
const firstNonEmpty = (target: SqlClient.SqlClient, plan: ReadonlyArray<{ readonly table: string }>) =>
  Effect.gen(function* () {
    for (const { table } of plan) {
      const [row] = yield* target.unsafe<{ n: number }>(`SELECT count(*) AS n FROM "${table}"`)
      if (Number(row?.n ?? 0) > 0) return { table, rows: Number(row?.n) }
    }
    return undefined
  })

/** Copies `table`'s rows, in pages, as multi-row INSERTs. */
const copyTable = (source: SqlClient.SqlClient, target: SqlClient.SqlClient, table: string, columns: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const page = Math.max(1, Math.floor(MAX_PARAMS / columns.length))
    const list = columns.map((c) => `"${c}"`).join(", ")
    let copied = 0
    for (let offset = 0; ; offset += page) {
      const rows = yield* outsideTransaction(source.unsafe(`SELECT ${list} FROM "${table}" ORDER BY rowid LIMIT ${page} OFFSET ${offset}`).values)
      if (rows.length === 0) break
      const params: Array<unknown> = []
      const tuples = rows.map((values) => `(${values.map((v) => { params.push(v); return `$${params.length}` }).join(", ")})`)
      yield* target.unsafe(`INSERT INTO "${table}" (${list}) VALUES ${tuples.join(", ")}`, params)
      copied += rows.length
      if (rows.length < page) break
    }
    return copied
  })

/** The chain recomputed on `sql`'s ledger, row by row in seq order: rows, head, and the first row that does not chain. */
export const recomputeChain = (sql: SqlClient.SqlClient) =>
  Effect.gen(function* () {
    let previous = GENESIS_HASH
    let after = 0
    let rows = 0
    for (;;) {
      const page = yield* sql`SELECT ${sql.literal(VERIFY_COLUMNS.join(", "))}, seq, row_hash FROM ledger WHERE seq > ${after} ORDER BY seq LIMIT 20000`.values
      for (const values of page) {
        const expected = rowHashFromValues(previous, values)
        const seq = Number(values[VERIFY_COLUMNS.length])
        if (expected !== values[VERIFY_COLUMNS.length + 1]) return { intact: false as const, rows, head: previous, badSeq: seq }
        previous = expected
        after = seq
        rows++
      }
      if (page.length < 20000) return { intact: true as const, rows, head: previous, lastSeq: after }
    }
  })

/**
 * Copies the SQLite store `source` into the PostgreSQL store at `location`, which must be missing or
 * empty; made and guarded like `state init` when missing. One transaction: refused, broken or failed,
 * the target is left as it was.
 */
export const importSqliteStore = (source: SqlClient.SqlClient, location: PgLocation): Effect.Effect<MigrateResult, MigrateError, Scope.Scope> =>
  Effect.gen(function* () {
    const label = pgStoreLabel(location.schema)
    const sourceChain = yield* recomputeChain(source).pipe(Effect.mapError((e) => new MigrateFailed({ target: label, detail: `reading the SQLite ledger: ${e.message}` })))
    if (!sourceChain.intact) {
      return yield* new MigrateChainBroken({ target: label, detail: `the SQLite store's own chain breaks at row ${sourceChain.badSeq} (pcli audit --verify)` })
    }
    const target = yield* openPgClient(location)
    const failed = (e: { readonly message: string; readonly cause?: unknown }) =>
      new MigrateFailed({ target: label, detail: redactUrl(String((e.cause as Error | undefined)?.message ?? e.message), location.url) })
    const body = Effect.gen(function* () {
      yield* migrationLock(target, location.schema)
      yield* ensureGuardedStore(target, location.schema, label)
      const plan = yield* copyPlan(source, target, location.schema)
      const occupied = yield* firstNonEmpty(target, plan)
      if (occupied !== undefined) return yield* new MigrateTargetNotEmpty({ target: label, ...occupied })
      const tables: Array<{ table: string; rows: number }> = []
      for (const { table, columns } of plan) tables.push({ table, rows: yield* copyTable(source, target, table, columns) })
      const meta = yield* outsideTransaction(source.unsafe<{ key: string; value: string }>(`SELECT key, value FROM meta WHERE key IN (${TRAVELLING_META.map((k) => `'${k}'`).join(", ")})`))
      for (const { key, value } of meta) {
        yield* target`INSERT INTO meta (key, value) VALUES (${key}, ${value}) ON CONFLICT (key) DO UPDATE SET value = excluded.value`
      }
      const arrived = yield* recomputeChain(target)
      if (!arrived.intact || arrived.head !== sourceChain.head || arrived.rows !== sourceChain.rows) {
        return yield* new MigrateChainBroken({ target: label, detail: arrived.intact ? `${arrived.rows} rows arrived with head ${arrived.head}, the source has ${sourceChain.rows} with head ${sourceChain.head}` : `row ${arrived.badSeq} does not recompute` })
      }
      const [last] = yield* target<{ timestamp: string }>`SELECT timestamp FROM ledger ORDER BY seq DESC LIMIT 1`
      yield* target`UPDATE ledger_head SET seq = ${arrived.lastSeq}, row_hash = ${arrived.head}, timestamp = ${last?.timestamp ?? ""} WHERE id = 1`
      return { label, tables, ledgerRows: arrived.rows, headHash: arrived.head } satisfies MigrateResult
    })
    return yield* target.withTransaction(body).pipe(Effect.catchTag("SqlError", (e) => Effect.fail(failed(e))))
  })
