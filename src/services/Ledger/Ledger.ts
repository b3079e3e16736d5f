import { Context, Data, type Effect, type Stream } from "effect"

export type LedgerKind = "evaluation" | "escalation" | "freeze" | "unfreeze" | "verification" | "approval"
export type PrincipalClass = "human" | "agent"
export type PrincipalIdSource = "flag" | "env" | "mcp_profile" | "default"
export type PolicyEffect = "allow" | "require_review" | "deny"

/** One decision as stored. `decision_ref` is its stable public reference. */
export interface LedgerRow {
  readonly decision_ref: string
  readonly kind: LedgerKind
  readonly timestamp: string // RFC 3339, UTC, millisecond precision
  readonly principal: PrincipalClass
  readonly principal_id: string | null // null for rows written before ids existed
  readonly principal_id_source: PrincipalIdSource | null
  readonly principal_id_verified: false
  readonly capability: string | null
  /** Target model; for freeze/unfreeze rows the scope selector string; `*` for verification. */
  readonly model: string | null
  readonly effect: PolicyEffect | null
  readonly rule_id: number | null
  readonly plan_id: string | null
  readonly reason: string | null
}

/** What a writer supplies; the ledger stamps `timestamp` and `decision_ref`. */
export type NewLedgerRow = Omit<LedgerRow, "decision_ref" | "timestamp" | "principal_id_verified">

export interface LedgerFilter {
  readonly since?: Date
  readonly until?: Date
  /** A principal id, or `null` for rows recorded without one. */
  readonly principalId?: string | null
  readonly models?: ReadonlyArray<string>
  readonly kinds?: ReadonlyArray<LedgerKind>
  readonly planId?: string
}

export class LedgerUnavailable extends Data.TaggedError("LedgerUnavailable")<{ readonly detail: string }> {
  readonly code = "ledger-unavailable"
  override get message() {
    return `decision ledger: ${this.detail}`
  }
}

export interface LedgerService {
  readonly append: (row: NewLedgerRow) => Effect.Effect<LedgerRow, LedgerUnavailable>
  /** Rows matching the filter, oldest first, streamed from SQL. */
  readonly query: (filter: LedgerFilter) => Stream.Stream<LedgerRow, LedgerUnavailable>
}

export class Ledger extends Context.Tag("pcli/Ledger")<Ledger, LedgerService>() {}
