import { Clock, Effect, Either } from "effect"
import type { AuditScorecardOutput, ScorecardDimension, ScorecardGroup } from "../schemas/audit"
import type { LedgerKind } from "../schemas/ledger"
import { Ledger, type OutcomeTally } from "../services/Ledger/Ledger"
import { parseSince } from "./since"

/** The only kinds that are policy evaluations (decisions.md 9). */
export const EVALUATION_KINDS: ReadonlyArray<LedgerKind> = ["evaluation", "escalation"]

const keyOf = (by: ScorecardDimension, row: OutcomeTally): string => {
  switch (by) {
    case "principal":
      return row.principal_id === null ? `${row.principal}(unrecorded)` : `${row.principal}(${row.principal_id})`
    case "rule":
      return row.rule_id === null ? "default" : `rule ${row.rule_id}`
    case "scope":
      return row.model ?? "-"
  }
}

const rate = (n: number, of: number) => (of === 0 ? 0 : Math.round((n / of) * 10_000) / 10_000)

/** `pcli audit --scorecard --by <dim> --window all|<when>`: grouped in SQL, so memory holds one tally per group. */
export const auditScorecard = (input: { readonly by: ScorecardDimension; readonly window: string }) =>
  Effect.gen(function* () {
    const ledger = yield* Ledger
    const now = yield* Clock.currentTimeMillis
    const start =
      input.window === "all" ? undefined : yield* Either.match(parseSince(input.window, now, "--window"), { onLeft: Effect.fail, onRight: Effect.succeed })
    // Counted in SQL: a million evaluations come back as one row per group.
    const tallies = new Map<string, { evaluations: number; allowed: number; denied: number; escalated: number }>()
    for (const row of yield* ledger.outcomes(input.by, EVALUATION_KINDS, start)) {
      const key = keyOf(input.by, row)
      const t = tallies.get(key) ?? { evaluations: 0, allowed: 0, denied: 0, escalated: 0 }
      tallies.set(key, { evaluations: t.evaluations + row.total, allowed: t.allowed + row.allow, denied: t.denied + row.deny, escalated: t.escalated + row.require_review })
    }
    const groups: Array<ScorecardGroup> = [...tallies.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, t]) => ({
        key,
        ...t,
        acceptance_rate: rate(t.allowed, t.evaluations),
        denial_rate: rate(t.denied, t.evaluations),
        escalation_rate: rate(t.escalated, t.evaluations)
      }))
    const out: AuditScorecardOutput = {
      command: "audit_scorecard",
      by: input.by,
      window: input.window,
      window_start: start?.toISOString() ?? null,
      evaluations: groups.reduce((n, g) => n + g.evaluations, 0),
      groups
    }
    return out
  })
