import { isGatedPlan, type Plan } from "../../schemas/plans"
import { type QueueItem } from "../../schemas/reviewQueueOutput"
import { ALWAYS_GATED, needsHumanMarker } from "./gatedKinds"
import type { ReviewState } from "./approvals"

/** Heavier changes wait less: breaking 3, value change 2, additive 1; gc 3, backfill and restore 2. */
const CLASS_WEIGHT: Readonly<Record<string, number>> = {
  "schema_change.breaking": 3,
  value_change: 2,
  "schema_change.additive": 1,
  gc: 3,
  backfill: 2,
  restore: 2
}

/** The plan's strictest change class (its kind for gc, restore and backfill). */
export const planClass = (plan: Plan): string => {
  if (isGatedPlan(plan)) return plan.kind
  return plan.payload.changes.reduce<string>(
    (worst, c) => ((CLASS_WEIGHT[c.change_class] ?? 0) > (CLASS_WEIGHT[worst] ?? 0) ? c.change_class : worst),
    "schema_change.additive"
  )
}

/** A model's downstream closure in the compiled project; undefined when the project did not compile. */
export type Downstream = ((model: string) => ReadonlyArray<string>) | undefined

/** Models outside the plan that its models feed, or undefined when the project did not compile. */
export const blastRadius = (plan: Plan, downstream: Downstream): number | undefined => {
  if (downstream === undefined) return undefined
  const own = new Set(plan.payload.models)
  const reached = new Set<string>()
  for (const model of own) for (const d of downstream(model)) if (!own.has(d)) reached.add(d)
  return reached.size
}

/** score = (blast_radius + 1) × class_weight × (1 + staleness_hours); unknown blast radius counts 0. */
export const score = (blast: number | undefined, weight: number, stalenessSeconds: number): number =>
  ((blast ?? 0) + 1) * weight * (1 + stalenessSeconds / 3600)

/**
 * Pending = without a valid, recorded marker: a gated kind, or a rollback that needs one (an agent's, its author as
 * recorded, or one whose issuing policy sent to review: a rollback keeps its kind, as a run plan turns escalation).
 */
export const isPending = (plan: Plan, marker: ReviewState, reviewAtIssue: boolean): boolean =>
  (ALWAYS_GATED.has(plan.kind) || needsHumanMarker(plan.kind, plan.principal.class) || (plan.kind === "rollback" && reviewAtIssue)) &&
  marker._tag !== "Approved"

/** A plan that may be pending, before its recorded author is known. */
export const mayBePending = (plan: Plan): boolean => ALWAYS_GATED.has(plan.kind) || plan.kind === "rollback"

/** The pending plans, highest score first, then plan id. */
export const rankQueue = (
  entries: ReadonlyArray<{ readonly plan: Plan; readonly marker: ReviewState; readonly stale: boolean; readonly pending: boolean }>,
  downstream: Downstream,
  nowMillis: number
): ReadonlyArray<QueueItem> =>
  entries
    .filter((e) => e.pending)
    .map(({ plan, marker, stale }) => {
      const changeClass = planClass(plan)
      const weight = CLASS_WEIGHT[changeClass] ?? 1
      const blast = blastRadius(plan, downstream)
      const staleness = Math.max(0, Math.floor((nowMillis - Date.parse(plan.created_at)) / 1000))
      const raw = score(blast, weight, staleness)
      return {
        raw,
        item: {
          plan_id: plan.plan_id,
          kind: plan.kind,
          created_at: plan.created_at,
          principal: plan.principal,
          models: [...plan.payload.models],
          change_class: changeClass,
          class_weight: weight,
          ...(blast === undefined ? {} : { blast_radius: blast }),
          staleness_seconds: staleness,
          score: Math.round(raw * 1000) / 1000,
          marker: marker._tag === "Absent" ? ("missing" as const) : marker._tag === "Unrecorded" ? ("unrecorded" as const) : ("invalid" as const),
          stale,
          approve_command: `pcli review ${plan.plan_id} --approve`
        } satisfies QueueItem
      }
    })
    .sort((a, b) => b.raw - a.raw || (a.item.plan_id < b.item.plan_id ? -1 : a.item.plan_id > b.item.plan_id ? 1 : 0))
    .map((e) => e.item)
