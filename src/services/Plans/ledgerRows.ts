import type { PlanKind } from "../../schemas/plans"
import type { LedgerRow, LedgerService, NewLedgerRow, PolicyEffect, PrincipalClass } from "../Ledger/Ledger"
import type { ActingPrincipal } from "../Principal/Principal"

/** Every row the governance loop writes is built here, so the row shape changes in one place. */

const actorFields = (actor: ActingPrincipal, principal: PrincipalClass) => ({
  principal,
  principal_id: actor.id,
  principal_id_source: actor.source
})

/** One policy evaluation of one model (what the gate resolved, and what came of it in `reason`). */
export const evaluationRow = (input: {
  readonly actor: ActingPrincipal
  readonly principal: PrincipalClass
  readonly model: string
  readonly capability: string
  readonly effect: PolicyEffect
  readonly ruleId: number | null
  /** Null for an agent's `pcli run`, which has no plan. */
  readonly planId: string | null
  readonly reason: string
}): NewLedgerRow => ({
  kind: "evaluation",
  ...actorFields(input.actor, input.principal),
  capability: input.capability,
  model: input.model,
  effect: input.effect,
  rule_id: input.ruleId,
  plan_id: input.planId,
  reason: input.reason
})

/** A refusal before any evaluation (unknown id, integrity, stale, bad marker, bad base ref): one row, no effect resolved. */
export const refusalRow = (input: {
  readonly actor: ActingPrincipal
  readonly principal: PrincipalClass
  readonly capability: string | null
  readonly planId: string | null
  readonly error: { readonly code: string; readonly message: string }
}): NewLedgerRow => ({
  kind: "evaluation",
  ...actorFields(input.actor, input.principal),
  capability: input.capability,
  model: null,
  effect: null,
  rule_id: null,
  plan_id: input.planId,
  reason: refusalReason(input.error)
})

/** How a refusal reads in a row's reason: the stable code first, then the message. */
export const refusalReason = (error: { readonly code: string; readonly message: string }): string =>
  `refused [${error.code}]: ${error.message}`

/** A human's sign-off of a plan (decisions.md item 9): never counted as an evaluation. */
export const approvalRow = (input: {
  readonly actor: ActingPrincipal
  readonly planId: string
  readonly approver: string
  readonly reviewedAt: string
}): NewLedgerRow => ({
  kind: "approval",
  ...actorFields(input.actor, input.actor.class),
  capability: null,
  model: null,
  effect: "allow",
  rule_id: null,
  plan_id: input.planId,
  reason: `plan approved by ${input.approver} at ${input.reviewedAt}`
})

/** The post-apply `verify_after` outcome of one rule: allow = every check passed, deny otherwise. */
export const verificationRow = (input: {
  readonly actor: ActingPrincipal
  readonly principal: PrincipalClass
  readonly planId: string
  readonly ruleId: number
  readonly passed: boolean
  readonly reason: string
}): NewLedgerRow => ({
  kind: "verification",
  ...actorFields(input.actor, input.principal),
  capability: "apply",
  model: "*",
  effect: input.passed ? "allow" : "deny",
  rule_id: input.ruleId,
  plan_id: input.planId,
  reason: input.reason
})

/** The reason of each row `plan` and MCP `propose` write for the plan they issue: the verdict, then the kind planned. */
export const plannedReason = (verdict: string, kind: PlanKind): string => `${verdict}; planned as ${kind}`

/** The reason of the one row gc, backfill and restore write for the plan they issue. */
export const ISSUED_REASON = {
  gc: "gc plans are always review-gated and governed as agent",
  backfill: "backfill plans are always review-gated and governed as agent",
  restore: "restore plans are always review-gated"
} as const

/** Kinds whose issuing row records the class they are governed as (agent) in `principal`, the issuer's in its reason. */
export const GOVERNED_AS_AGENT: ReadonlySet<PlanKind> = new Set(["gc", "backfill"])

const ISSUED_BY = "; issued by "

/** The issuing row's reason for gc and backfill: its `principal` is the governed class, so the issuer's is named here. */
export const governedIssuedReason = (kind: "gc" | "backfill", issuer: PrincipalClass): string => `${ISSUED_REASON[kind]}${ISSUED_BY}${issuer}`

/** The issuer's class a gc or backfill issuing row names; undefined in rows written before pcli recorded it. */
export const recordedIssuer = (row: LedgerRow): PrincipalClass | undefined => {
  const at = row.reason?.lastIndexOf(ISSUED_BY) ?? -1
  const named = at < 0 ? undefined : row.reason!.slice(at + ISSUED_BY.length)
  return named === "human" || named === "agent" ? named : undefined
}

/** A row written as its plan was issued, not by a later apply or refusal: where its author and time are recorded. */
export const isIssuingRow = (row: LedgerRow, kind: PlanKind): boolean => {
  if (row.kind !== "evaluation" || row.effect === null) return false
  if (kind === "gc" || kind === "backfill") {
    return row.capability === kind && (row.reason === ISSUED_REASON[kind] || row.reason?.startsWith(`${ISSUED_REASON[kind]}${ISSUED_BY}`) === true)
  }
  if (kind === "restore") return row.capability === kind && row.reason === ISSUED_REASON[kind]
  return row.reason?.endsWith(plannedReason("", kind)) === true
}

/** All of one decision's rows in one transaction: one commit, not one per model. */
export const appendRows = (ledger: LedgerService, rows: ReadonlyArray<NewLedgerRow>) => ledger.appendAll(rows)
