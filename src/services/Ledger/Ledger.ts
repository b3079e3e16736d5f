import { Context, Data, type Effect, type Option, type Stream } from "effect"
import type { LedgerKind, LedgerRow, PrincipalClass } from "../../schemas/ledger"

// The row, its kinds and literals are Schemas in src/schemas/ledger.ts; re-exported for this service's importers.
export { LedgerKind, LedgerRow, PolicyEffect, PrincipalClass, PrincipalIdSource } from "../../schemas/ledger"

/** What a writer supplies; the ledger stamps `timestamp`, `decision_ref` and `principal_id_verified` (true when the id's source is `role`). */
export type NewLedgerRow = Omit<LedgerRow, "decision_ref" | "timestamp" | "principal_id_verified" | "target_principal"> & {
  /** The principal a freeze, unfreeze or refusal is about; omitted (null) on other rows. */
  readonly target_principal?: PrincipalClass | null
}

export interface LedgerFilter {
  readonly since?: Date
  readonly until?: Date
  /** A principal id, or `null` for rows recorded without one. */
  readonly principalId?: string | null
  readonly models?: ReadonlyArray<string>
  readonly kinds?: ReadonlyArray<LedgerKind>
  readonly effects?: ReadonlyArray<string>
  readonly planId?: string
  /** Rows of any of these plans (one read for many; an empty list matches none). */
  readonly planIds?: ReadonlyArray<string>
}

export class LedgerUnavailable extends Data.TaggedError("LedgerUnavailable")<{ readonly detail: string }> {
  readonly code = "ledger-unavailable"
  override get message() {
    return `decision ledger: ${this.detail}`
  }
}

/** Where `audit --verify` found the chain broken. */
export interface ChainBreak {
  readonly seq: number
  readonly decision_ref: string | null
  readonly expected_hash: string | null
  readonly stored_hash: string | null
  readonly reason: string
}

/** The result of walking the chain: rows verified before any break, and the last good hash. */
export interface ChainReport {
  readonly intact: boolean
  readonly rows: number
  readonly head_hash: string
  readonly first_bad: ChainBreak | null
}

/** Recorded policy evaluations sharing (principal, capability, model): what replay re-evaluates once. */
export interface EvaluationGroup {
  readonly principal: PrincipalClass
  readonly capability: string | null
  readonly model: string | null
  readonly count: number
  readonly first_decision_ref: string
  readonly last_decision_ref: string
}

/** Policy outcomes of one scorecard group, counted in SQL. */
export interface OutcomeTally {
  readonly principal: PrincipalClass
  readonly principal_id: string | null
  readonly rule_id: number | null
  readonly model: string | null
  readonly total: number
  readonly allow: number
  readonly require_review: number
  readonly deny: number
}

/** A row with its place in the chain: what a review marker names (decisions 34). */
export interface SealedRow {
  readonly row: LedgerRow
  readonly seq: number
  readonly row_hash: string
}

/** A row looked up by seq, and whether the chain verifies from it to the head. */
export interface ChainedRow extends SealedRow {
  /** The row's hash recomputes from its predecessor's, and every row after it chains to the head. */
  readonly chained: boolean
}

export interface LedgerService {
  readonly append: (row: NewLedgerRow) => Effect.Effect<LedgerRow, LedgerUnavailable>
  /** `append`, answering the row's seq and hash. */
  readonly appendSealed: (row: NewLedgerRow) => Effect.Effect<SealedRow, LedgerUnavailable>
  /** The row at `seq` (none when there is none), with the chain checked from it to the head. */
  readonly chainedAt: (seq: number) => Effect.Effect<Option.Option<ChainedRow>, LedgerUnavailable>
  /** Appends every row in one transaction, with one timestamp: all are recorded or none. */
  readonly appendAll: (rows: ReadonlyArray<NewLedgerRow>) => Effect.Effect<ReadonlyArray<LedgerRow>, LedgerUnavailable>
  /** Rows matching the filter, oldest first, streamed from SQL. */
  readonly query: (filter: LedgerFilter) => Stream.Stream<LedgerRow, LedgerUnavailable>
  /** How many rows match, counted in SQL. */
  readonly count: (filter: LedgerFilter) => Effect.Effect<number, LedgerUnavailable>
  /** Rows of `kinds` at or after `since`, grouped in SQL by the scorecard dimension; `escalation` rows count as require_review. */
  readonly outcomes: (
    by: "principal" | "rule" | "scope",
    kinds: ReadonlyArray<LedgerKind>,
    since: Date | undefined
  ) => Effect.Effect<ReadonlyArray<OutcomeTally>, LedgerUnavailable>
  /** Evaluation rows at or after `since`, grouped in SQL (a million rows stay a few groups in memory). */
  readonly evaluationGroups: (since: Date | undefined) => Effect.Effect<ReadonlyArray<EvaluationGroup>, LedgerUnavailable>
  /**
   * The same rows as `query`, collected without a Stream: one bounded SELECT, paging only past the
   * first page. What the policy gate reads on every evaluation (usually no rows at all).
   */
  readonly list: (filter: LedgerFilter) => Effect.Effect<ReadonlyArray<LedgerRow>, LedgerUnavailable>
  /** Recomputes every row's hash in order (decisions.md 27). */
  readonly verify: Effect.Effect<ChainReport, LedgerUnavailable>
  /** The newest row's `row_hash` (64 zeros for an empty ledger): what a person pins. */
  readonly headHash: Effect.Effect<string, LedgerUnavailable>
}

export class Ledger extends Context.Tag("pcli/Ledger")<Ledger, LedgerService>() {}
