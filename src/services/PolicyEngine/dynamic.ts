import { Either, Schema } from "effect"
import { Principal, windowMillis } from "../../schemas/policy"
import type { LedgerRow } from "../Ledger/Ledger"
import type { EvaluationSubject } from "./attributes"
import { type CompiledPolicy, stricter, type Verdict } from "./evaluate"
import { scopeStringMatches } from "./selector"
import { lazy } from "../../platform/lazy"

/** A freeze in force, from the ledger or from a durable marker. */
export interface ActiveFreeze {
  readonly source: "ledger" | "marker"
  /** Absent for a widened (unreadable) marker: it applies to both principals. */
  readonly principal?: Principal
  readonly scope: string
  readonly reason: string
  readonly since?: string
  readonly plan_id?: string
  readonly freeze_id?: string
  /** The freeze row's public reference, for a ledger freeze. */
  readonly decision_ref?: string
  /** Who recorded a ledger freeze, as `class(id)`. */
  readonly frozen_by?: string
}

type Direction = "freeze" | "unfreeze"

/** A refusal row (an agent's unfreeze) has its own kind and prefix: it lifts nothing. */
const directionOf = (row: LedgerRow): Direction | undefined => {
  if (row.kind === "freeze" || row.kind === "unfreeze") return row.kind
  if (row.kind === "refusal") return undefined
  if (row.plan_id?.startsWith("freeze:")) return "freeze"
  if (row.plan_id?.startsWith("unfreeze:")) return "unfreeze"
  return undefined
}

/** The principal a freeze row is about; rows from before migration 003 kept it in `principal`. */
const frozenPrincipal = (row: LedgerRow): Principal => row.target_principal ?? row.principal

/** Projection of freeze/unfreeze rows: the latest row per (frozen principal, scope string) wins. */
export const ledgerFreezes = (rows: ReadonlyArray<LedgerRow>): ReadonlyArray<ActiveFreeze> => {
  const latest = new Map<string, { row: LedgerRow; direction: Direction }>()
  for (const row of rows) {
    const direction = directionOf(row)
    if (direction === undefined) continue
    const key = `${frozenPrincipal(row)}\u0000${row.model ?? ""}`
    const prior = latest.get(key)
    if (prior === undefined || row.timestamp >= prior.row.timestamp) latest.set(key, { row, direction })
  }
  return [...latest.values()]
    .filter((e) => e.direction === "freeze")
    .sort((a, b) =>
      compareFreezeKeys(a.row.timestamp, b.row.timestamp, frozenPrincipal(a.row), frozenPrincipal(b.row), a.row.model ?? "", b.row.model ?? "")
    )
    .map(({ row }) => ({
      source: "ledger" as const,
      principal: frozenPrincipal(row),
      scope: row.model ?? "",
      reason: row.reason ?? "",
      since: row.timestamp,
      decision_ref: row.decision_ref,
      ...(row.plan_id === null ? {} : { plan_id: row.plan_id }),
      frozen_by: `${row.principal}(${row.principal_id ?? "unrecorded"})`
    }))
}

const compareFreezeKeys = (ta: string, tb: string, pa: string, pb: string, sa: string, sb: string): number =>
  ta < tb ? -1 : ta > tb ? 1 : pa < pb ? -1 : pa > pb ? 1 : sa < sb ? -1 : sa > sb ? 1 : 0

/** Body of `<prefix>/freeze/<uuid>.json` and `<prefix>/unfreeze/<uuid>.json`. */
export const FreezeMarkerBody = Schema.Struct({
  freeze_id: Schema.String,
  principal: Principal,
  scope: Schema.String,
  reason: Schema.String,
  created_at: Schema.String,
  plan_id: Schema.optional(Schema.String)
})
export type FreezeMarkerBody = typeof FreezeMarkerBody.Type

/** One marker object as listed; `body` is undefined when the object could not be read. */
export interface MarkerObject {
  readonly direction: Direction
  readonly id: string
  readonly body: string | undefined
}

// Compiled on first use: most commands never read a marker.
const bodyDecoder = lazy(() => Schema.decodeUnknownEither(Schema.parseJson(FreezeMarkerBody)))
const decodeBody = (body: unknown) => bodyDecoder()(body)

/** Marker projection: latest per (principal, scope); an unreadable freeze widens to both principals, scope `any`. */
export const markerFreezes = (objects: ReadonlyArray<MarkerObject>): ReadonlyArray<ActiveFreeze> => {
  const widened: Array<ActiveFreeze> = []
  const latest = new Map<string, { body: FreezeMarkerBody; direction: Direction; id: string }>()
  const sorted = [...objects].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  for (const object of sorted) {
    const decoded = object.body === undefined ? undefined : decodeBody(object.body)
    if (decoded === undefined || Either.isLeft(decoded)) {
      // An unreadable unfreeze can lift nothing; an unreadable freeze fails closed.
      if (object.direction === "freeze") {
        widened.push({ source: "marker", scope: "any", reason: `unreadable freeze marker ${object.id} (widened to every principal and model)`, freeze_id: object.id })
      }
      continue
    }
    const body = decoded.right
    const key = `${body.principal}\u0000${body.scope}`
    const prior = latest.get(key)
    if (prior === undefined || body.created_at >= prior.body.created_at) latest.set(key, { body, direction: object.direction, id: object.id })
  }
  const readable = [...latest.values()]
    .filter((e) => e.direction === "freeze")
    .sort((a, b) => compareFreezeKeys(a.body.created_at, b.body.created_at, a.body.principal, b.body.principal, a.body.scope, b.body.scope))
    .map(({ body, id }) => ({
      source: "marker" as const,
      principal: body.principal,
      scope: body.scope,
      reason: body.reason,
      since: body.created_at,
      ...(body.plan_id === undefined ? {} : { plan_id: body.plan_id }),
      freeze_id: id
    }))
  return [...readable, ...widened]
}

/** Failures charged to a rule: distinct plans with a failed verification inside the window and an evaluation by that rule. */
export const budgetFailures = (rows: ReadonlyArray<LedgerRow>, ruleId: number, windowMs: number, now: Date): number => {
  const from = new Date(now.getTime() - windowMs).toISOString()
  const failed = new Set<string>()
  const evaluated = new Set<string>()
  for (const row of rows) {
    if (row.plan_id === null || directionOf(row) !== undefined) continue
    if (row.kind === "verification" && row.effect === "deny" && row.timestamp >= from) failed.add(row.plan_id)
    if (row.kind === "evaluation" && row.rule_id === ruleId) evaluated.add(row.plan_id)
  }
  let count = 0
  for (const plan of failed) if (evaluated.has(plan)) count++
  return count
}

export interface DynamicInput {
  readonly policy: CompiledPolicy
  readonly principal: Principal
  readonly subject: EvaluationSubject
  readonly freezes: ReadonlyArray<ActiveFreeze>
  /** Ledger snapshot taken before this action's rows are written. */
  readonly rows: ReadonlyArray<LedgerRow>
  readonly now: Date
}

/** Tightens a static verdict with freezes (→ deny) and an exhausted autonomy budget (→ at least review). */
export const applyDynamic = (verdict: Verdict, input: DynamicInput): Verdict => {
  let { effect, reason } = verdict
  const winner = verdict.matched_rule === null ? undefined : input.policy.rules[verdict.matched_rule]
  const budget = winner?.rule.autonomy_budget
  if (budget !== undefined) {
    const windowMs = windowMillis(budget.window)
    const failures = windowMs === undefined ? budget.failures : budgetFailures(input.rows, winner!.id, windowMs, input.now)
    if (failures >= budget.failures) {
      const before = effect
      effect = stricter(effect, "require_review")
      reason += `; autonomy budget exhausted on rule ${winner!.id} (${failures}/${budget.failures} verify-after failures in ${budget.window})${before === effect ? "" : ` — ${before} degraded to ${effect}`}`
    }
  }
  const freeze = input.freezes.find(
    (f) => (f.principal === undefined || f.principal === input.principal) && scopeStringMatches(f.scope, input.subject)
  )
  if (freeze !== undefined) {
    effect = "deny"
    const cause = { scope: freeze.scope, reason: freeze.reason, ...(freeze.decision_ref === undefined ? {} : { decision_ref: freeze.decision_ref }), ...(freeze.freeze_id === undefined ? {} : { freeze_id: freeze.freeze_id }) }
    reason += `; policy freeze active for ${input.principal} on scope '${freeze.scope}' — forced to deny (${freeze.plan_id ?? freeze.freeze_id ?? freeze.source})`
    return { effect, matched_rule: verdict.matched_rule, reason, freeze: cause }
  }
  return { effect, matched_rule: verdict.matched_rule, reason }
}
