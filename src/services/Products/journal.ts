import { SqlClient, SqlError } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { FulfillState, type ProductJournalEntry } from "../../schemas/products"
import { ApprovalCasLost, ProductRecordsUnavailable } from "./errors"
import { stateBackend } from "../StateStore/backend"

/** The approval pointer: every reader re-hashes the snapshot it names. */
export interface ApprovalRecord {
  readonly product_id: string
  readonly spec_digest: string
  readonly approver: string
  readonly approved_at: string
  readonly snapshot_path: string
  /** The approving principal as `class(id)`; null for approvals recorded before it was kept. */
  readonly approved_by: string | null
}

/** The fulfillment record, stored as JSON with the state flattened; unknown fields are ignored. */
export const FulfillRecord = Schema.Struct({
  state: FulfillState,
  product_id: Schema.String,
  spec_digest: Schema.NullOr(Schema.String),
  journal_seq: Schema.Int,
  updated_at: Schema.String,
  plan_id: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null }),
  idempotency_key: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null }),
  drafting_attempts: Schema.optionalWith(Schema.Int, { default: () => 0 }),
  repair_rounds: Schema.optionalWith(Schema.Int, { default: () => 0 })
})
export type FulfillRecord = typeof FulfillRecord.Type

/** A record as read, with its raw JSON (compare-and-swap compares whole records). */
export interface StoredRecord {
  readonly record: FulfillRecord
  readonly raw: string
}

const unavailable = (e: { readonly message: string; readonly cause?: unknown }) =>
  new ProductRecordsUnavailable({ detail: String((e.cause as Error | undefined)?.message ?? e.message) })

const decodeRecord = (product: string, raw: string) =>
  Effect.try({ try: () => JSON.parse(raw) as unknown, catch: () => new ProductRecordsUnavailable({ detail: `fulfillment record of '${product}' is not JSON` }) }).pipe(
    Effect.flatMap((data) => Schema.decodeUnknown(FulfillRecord)(data)),
    Effect.mapError((e) => (e._tag === "ProductRecordsUnavailable" ? e : new ProductRecordsUnavailable({ detail: `fulfillment record of '${product}' is malformed` }))),
    Effect.map((record): StoredRecord => ({ record, raw }))
  )

export const readApproval = (product: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<ApprovalRecord>`SELECT product_id, spec_digest, approver, approved_at, snapshot_path, approved_by FROM product_approvals WHERE product = ${product}`
  ).pipe(
    Effect.map((rows) => Option.fromNullable(rows[0])),
    Effect.mapError(unavailable)
  )

export const readRecord = (product: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ record_json: string }>`SELECT record_json FROM product_fulfillment WHERE product = ${product}`).pipe(
    Effect.mapError(unavailable),
    Effect.flatMap((rows) => (rows[0] === undefined ? Effect.succeed(Option.none<StoredRecord>()) : Effect.map(decodeRecord(product, rows[0].record_json), Option.some)))
  )

interface JournalRow {
  readonly seq: number
  readonly at: string
  readonly event: string
  readonly from_state: string | null
  readonly to_state: string
  readonly spec_digest: string | null
  readonly plan_id: string | null
  readonly idempotency_key: string | null
}

const isState = Schema.is(FulfillState)

/** Journal rows of one product in append order. */
export const readJournal = (product: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<JournalRow>`SELECT seq, at, event, from_state, to_state, spec_digest, plan_id, idempotency_key
                    FROM product_journal WHERE product = ${product} ORDER BY seq`
  ).pipe(
    Effect.mapError(unavailable),
    Effect.flatMap((rows) =>
      Effect.forEach(rows, (r) =>
        isState(r.to_state) && (r.from_state === null || isState(r.from_state))
          ? Effect.succeed({ ...r, seq: Number(r.seq), from_state: r.from_state, to_state: r.to_state } as ProductJournalEntry)
          : Effect.fail(new ProductRecordsUnavailable({ detail: `journal row ${r.seq} of '${product}' names an unknown state` }))
      )
    )
  )

/** Names holding an approval or fulfillment record. */
export const recordedProducts = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql<{ product: string }>`SELECT product FROM product_approvals UNION SELECT product FROM product_fulfillment ORDER BY product`
).pipe(
  Effect.map((rows) => rows.map((r) => r.product)),
  Effect.mapError(unavailable)
)

export interface ApprovalWrite {
  readonly product: string
  readonly approval: ApprovalRecord
  /** What the caller read before deciding; the write happens only if the store still holds exactly this. */
  readonly observed: { readonly approval: Option.Option<ApprovalRecord>; readonly record: Option.Option<StoredRecord> }
  readonly now: string
  readonly event: string
}

const sameApproval = (a: Option.Option<ApprovalRecord>, b: Option.Option<ApprovalRecord>) =>
  Option.isNone(a) ? Option.isNone(b) : Option.isSome(b) && JSON.stringify(a.value) === JSON.stringify(b.value)

/**
 * One transaction guarded by compare-and-swap: put the approval, a fresh `spec_approved` record and
 * the next journal row; `extra` (the ledger row) joins the same transaction. A mismatch writes nothing.
 */
export const recordApproval = <E, R>(write: ApprovalWrite, extra: Effect.Effect<unknown, E, R>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const backend = yield* stateBackend
    const body = Effect.gen(function* () {
      // A lock first, before the transaction reads what it compares: SQLite's write lock, taken by a write;
      // on PostgreSQL the chain's head row (a first approval has no row of its own to lock), which the ledger row needs anyway.
      yield* (
        backend === "postgres"
          ? sql`SELECT seq FROM ledger_head WHERE id = 1 FOR UPDATE`
          : sql`UPDATE product_fulfillment SET journal_seq = journal_seq WHERE product = ${write.product}`
      ).pipe(Effect.mapError(unavailable))
      const approval = yield* readApproval(write.product)
      const record = yield* sql<{ record_json: string }>`SELECT record_json FROM product_fulfillment WHERE product = ${write.product}`.pipe(
        Effect.mapError(unavailable)
      )
      const raw = Option.fromNullable(record[0]?.record_json)
      const observedRaw = Option.map(write.observed.record, (r) => r.raw)
      if (!sameApproval(approval, write.observed.approval) || !Option.getEquivalence((a: string, b: string) => a === b)(raw, observedRaw)) {
        return yield* new ApprovalCasLost({ product: write.product, current: Option.match(approval, { onNone: () => null, onSome: (a) => a.spec_digest }) })
      }
      const previous = Option.map(write.observed.record, (r) => r.record)
      const seq = Option.match(previous, { onNone: () => 1, onSome: (r) => r.journal_seq + 1 })
      const next: FulfillRecord = {
        state: "spec_approved",
        product_id: write.approval.product_id,
        spec_digest: write.approval.spec_digest,
        journal_seq: seq,
        updated_at: write.now,
        plan_id: null,
        idempotency_key: null,
        drafting_attempts: 0,
        repair_rounds: 0
      }
      const a = write.approval
      yield* sql`INSERT INTO product_approvals (product, product_id, spec_digest, approver, approved_at, snapshot_path, approved_by)
                 VALUES (${write.product}, ${a.product_id}, ${a.spec_digest}, ${a.approver}, ${a.approved_at}, ${a.snapshot_path}, ${a.approved_by})
                 ON CONFLICT (product) DO UPDATE SET product_id = excluded.product_id, spec_digest = excluded.spec_digest,
                   approver = excluded.approver, approved_at = excluded.approved_at, snapshot_path = excluded.snapshot_path,
                   approved_by = excluded.approved_by`.pipe(Effect.mapError(unavailable))
      yield* sql`INSERT INTO product_fulfillment (product, state, journal_seq, updated_at, record_json)
                 VALUES (${write.product}, ${next.state}, ${seq}, ${write.now}, ${JSON.stringify(next)})
                 ON CONFLICT (product) DO UPDATE SET state = excluded.state, journal_seq = excluded.journal_seq,
                   updated_at = excluded.updated_at, record_json = excluded.record_json`.pipe(Effect.mapError(unavailable))
      const fromState = Option.match(previous, { onNone: () => null, onSome: (r) => r.state })
      yield* sql`INSERT INTO product_journal (product, seq, at, event, from_state, to_state, spec_digest, plan_id, idempotency_key)
                 VALUES (${write.product}, ${seq}, ${write.now}, ${write.event}, ${fromState}, ${next.state}, ${a.spec_digest}, ${null}, ${null})`.pipe(
        Effect.mapError(unavailable)
      )
      yield* extra
      return { previousState: Option.map(previous, (r) => r.state), seq }
    })
    return yield* sql.withTransaction(body).pipe(Effect.mapError((e) => ((e as { _tag?: unknown })._tag === "SqlError" ? unavailable(e as SqlError.SqlError) : (e as Exclude<typeof e, SqlError.SqlError>))))
  })
