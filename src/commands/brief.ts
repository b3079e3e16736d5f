import { Clock, Effect, Stream } from "effect"
import type { Availability, BriefDecision, BriefOutput, BriefSince, PrincipalActivity } from "../schemas/brief"
import type { LedgerRow } from "../schemas/ledger"
import { DigestStore, type Window } from "../services/Digest/DigestStore"
import { latestFreshness } from "../services/Freshness/Freshness"
import { Ledger } from "../services/Ledger/Ledger"
import { ledgerFreezes } from "../services/PolicyEngine/dynamic"
import { StateStore } from "../services/StateStore/StateStore"
import { EVALUATION_KINDS } from "./auditScorecard"

export interface BriefInput {
  readonly since: BriefSince
  /** Epoch milliseconds; the clock when absent. */
  readonly now?: number | undefined
}

/** The newest decisions a digest lists; the counts always cover the whole window. */
export const BRIEF_DECISION_LIMIT = 100

const HOUR = 3_600_000
const SPAN: Readonly<Record<Exclude<BriefSince, "last">, number>> = { "24h": 24 * HOUR, "7d": 7 * 24 * HOUR }

const status = (availability: Availability, note?: string) => (note === undefined ? { availability } : { availability, note })

const UNRECORDED = {
  drift: "pcli records no drift checks",
  scheduler: "pcli has no scheduler: runs are started by hand or by an external orchestrator"
} as const

const principalLabel = (row: LedgerRow) => `${row.principal}(${row.principal_id ?? "unrecorded"})`

const decisionOf = (row: LedgerRow): BriefDecision => ({
  timestamp: row.timestamp,
  decision_ref: row.decision_ref,
  plan_id: row.plan_id,
  principal: principalLabel(row),
  capability: row.capability,
  model: row.model,
  effect: row.effect,
  ...(row.rule_id === null ? {} : { rule_id: row.rule_id }),
  reason: row.reason
})

/** Policy evaluations in the window, folded as they stream: per-principal tallies and the newest decisions. */
const agentActivity = (window: Window) =>
  Effect.gen(function* () {
    const ledger = yield* Ledger
    const filter = { kinds: EVALUATION_KINDS, until: new Date(window.to), ...(window.from === undefined ? {} : { since: new Date(window.from) }) }
    const acc = yield* Stream.runFold(ledger.query(filter), { tallies: new Map<string, PrincipalActivity>(), newest: [] as Array<LedgerRow> }, (acc, row) => {
      const key = principalLabel(row)
      const t = acc.tallies.get(key) ?? { principal: key, total: 0, allow: 0, require_review: 0, deny: 0 }
      const effect = row.kind === "escalation" ? "require_review" : row.effect
      acc.tallies.set(key, { ...t, total: t.total + 1, ...(effect === null ? {} : { [effect]: t[effect] + 1 }) })
      acc.newest.push(row)
      if (acc.newest.length > BRIEF_DECISION_LIMIT) acc.newest.shift()
      return acc
    })
    const by_principal = [...acc.tallies.values()].sort(
      (a, b) => Number(b.principal.startsWith("human(")) - Number(a.principal.startsWith("human(")) || (a.principal < b.principal ? -1 : a.principal > b.principal ? 1 : 0)
    )
    const sum = (k: "total" | "allow" | "require_review" | "deny") => by_principal.reduce((n, p) => n + p[k], 0)
    const total = sum("total")
    const shown = acc.newest.length < total ? `showing the ${acc.newest.length} newest of ${total} decisions` : undefined
    return {
      ...(total === 0 ? status("no_data", "no policy evaluations in the window") : status("available", shown)),
      total,
      allow: sum("allow"),
      require_review: sum("require_review"),
      deny: sum("deny"),
      by_principal,
      decisions: acc.newest.reverse().map(decisionOf)
    }
  })

/** Every section unavailable: a missing store has recorded nothing (exit 0, not an error). */
const storeMissing = (head: Omit<BriefOutput, keyof Sections>, path: string): BriefOutput => {
  const s = status("unavailable", `state store not found at ${path}: nothing has been recorded`)
  return {
    ...head,
    escalations: { ...s, ranking: "recency", total: 0, pending: [] },
    agent_activity: { ...s, total: 0, allow: 0, require_review: 0, deny: 0, by_principal: [], decisions: [] },
    runs: { ...s, total: 0, succeeded: 0, failed: 0, runs: [] },
    drift: s,
    freshness: { ...s, checks: [] },
    quality: { ...s, executions: 0, failed: 0, warnings: 0, findings: [] },
    cost: { ...s, duration_ms: 0, rows_affected: 0, runs: [] },
    autonomy: { ...s, active_freezes: [] },
    scheduler: s
  }
}

type Sections = Omit<BriefOutput, "command" | "generated_at" | "since_mode" | "since_timestamp" | "ledger_head_hash">

/**
 * `pcli brief --since last|24h|7d`: what happened in the window and what waits for a person.
 * Read-only: a `last` digest's cursor is advanced by `advanceBriefCursor`, after it is delivered.
 */
export const brief = (input: BriefInput) =>
  Effect.gen(function* () {
    const store = yield* StateStore
    const digest = yield* DigestStore
    const ledger = yield* Ledger
    const now = input.now ?? (yield* Clock.currentTimeMillis)
    const generated_at = new Date(now).toISOString()
    const from = input.since === "last" ? (store.persisted ? yield* digest.cursor : undefined) : new Date(now - SPAN[input.since]).toISOString()
    const head = {
      command: "brief" as const,
      generated_at,
      since_mode: input.since,
      ...(from === undefined ? {} : { since_timestamp: from }),
      ledger_head_hash: yield* ledger.headHash
    }
    if (!store.persisted) return storeMissing(head, store.path)
    // Half-open [from, generated_at): consecutive `last` digests neither overlap nor leave a gap.
    const window: Window = from === undefined ? { to: generated_at } : { from, to: generated_at }
    const pending = yield* digest.pendingEscalations
    const runs = yield* digest.runs(window)
    const executions = yield* digest.executions(window)
    const freezes = ledgerFreezes(yield* Stream.runCollect(ledger.query({ kinds: ["freeze", "unfreeze"] })).pipe(Effect.map((c) => [...c])))
    const freshness = yield* latestFreshness(window)
    const succeeded = runs.filter((r) => r.status === "success").length
    const noRuns = status("no_data", "no runs in the window")
    const out: BriefOutput = {
      ...head,
      escalations: {
        ...(pending.length === 0 ? status("no_data", "no escalation waits for review") : status("available")),
        ranking: "recency",
        total: pending.length,
        pending: [...pending]
      },
      agent_activity: yield* agentActivity(window),
      runs: { ...(runs.length === 0 ? noRuns : status("available")), total: runs.length, succeeded, failed: runs.length - succeeded, runs: [...runs] },
      drift: status("unavailable", UNRECORDED.drift),
      freshness: {
        ...(freshness.length === 0 ? status("no_data", "no freshness checks in the window (they run after a model with [freshness] builds, and with pcli test)") : status("available")),
        checks: [...freshness]
      },
      quality: {
        ...(runs.length === 0 ? noRuns : status("available")),
        executions: executions.executions,
        failed: executions.failed,
        warnings: executions.warnings,
        findings: [...executions.findings]
      },
      cost: {
        ...(runs.length === 0 ? noRuns : status("available", "execution time and rows written; pcli records no warehouse billing")),
        duration_ms: executions.cost.reduce((n, c) => n + c.duration_ms, 0),
        rows_affected: executions.cost.reduce((n, c) => n + c.rows_affected, 0),
        runs: [...executions.cost]
      },
      autonomy: {
        ...(freezes.length === 0 ? status("no_data", "no freeze in force") : status("available")),
        active_freezes: freezes.map((f) => ({ principal: f.principal ?? null, scope: f.scope, frozen_at: f.since ?? null, plan_id: f.plan_id ?? null }))
      },
      scheduler: status("unavailable", UNRECORDED.scheduler)
    }
    return out
  })

/**
 * `brief`, and whether its cursor may move once the digest is delivered: only for `last`, and
 * never onto a store that does not exist yet (advancing would create one).
 */
export const briefForDelivery = (input: BriefInput) =>
  Effect.gen(function* () {
    const out = yield* brief(input)
    return { out, advanceCursor: input.since === "last" && (yield* StateStore).persisted }
  })

/** Moves the `last` cursor to a delivered digest's `generated_at`: brief's only write, and only for `--since last`. */
export const advanceBriefCursor = (generatedAt: string) => Effect.flatMap(DigestStore, (d) => d.advanceCursor(generatedAt))
