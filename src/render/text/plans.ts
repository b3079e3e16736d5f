import type { ApplyOutput, Evaluation, ModelChange, PlanOutput } from "../../schemas/plans"
import type { PlanListOutput } from "../../schemas/planListOutput"
import type { ReviewOutput } from "../../schemas/reviewOutput"
import type { ReviewQueueOutput } from "../../schemas/reviewQueueOutput"
import type { ReviewStatusOutput } from "../../schemas/reviewStatusOutput"
import { renderRunText } from "./pipeline"

const evaluationLine = (e: Evaluation) =>
  `  ${e.effect.padEnd(14)} ${e.capability} on ${e.model}${e.rule_id === null ? "" : ` (rule ${e.rule_id})`}: ${e.reason}`

const changeLines = (changes: ReadonlyArray<ModelChange>) =>
  changes.flatMap((c) => [
    `  ${c.change_class.padEnd(24)} ${c.model}`,
    ...c.findings.map((f) => `      ${f.kind}${f.column === undefined ? "" : ` ${f.column}`}${f.from === undefined ? "" : ` ${f.from} → ${f.to ?? "?"}`}`)
  ])

const policyLines = (policy: PlanOutput["policy"], evaluations: ReadonlyArray<Evaluation>) =>
  policy === "not_configured" ? ["policy: no [policy] block, nothing evaluated"] : ["policy:", ...evaluations.map(evaluationLine)]

export const planText = (o: PlanOutput): string =>
  [
    `plan ${o.plan_id} (${o.kind})${o.written ? "" : " already on disk"}: ${o.path}`,
    `base: ${o.base.kind === "git" ? `${o.base.ref} (${o.base.commit.slice(0, 12)})` : "last applied state"}`,
    o.changes.length === 0 ? "no changes" : "changes:",
    ...changeLines(o.changes),
    `models to build: ${o.models.length === 0 ? "none" : o.models.join(", ")}`,
    ...policyLines(o.policy, o.evaluations),
    `next: ${o.next}`
  ].join("\n")

/** `human(alice) (git alice@example.com)`: the acting principal, the git identity beside it. */
const approverText = (a: { readonly principal?: string | undefined; readonly email: string } | undefined) =>
  a === undefined ? "unknown" : a.principal === undefined ? a.email : `${a.principal} (git ${a.email})`

/** `BREAKING: events_clean column_removed user_id — read by daily_users, daily_active_users`. */
const breakingLine = (b: ReviewOutput["breaking_changes"][number]) => {
  const readers = b.read_by === undefined ? "" : ` — read by ${b.read_by.length === 0 ? "no downstream model" : b.read_by.join(", ")}`
  const unresolved = b.read_by_unresolved === undefined ? "" : `; unresolved in ${b.read_by_unresolved.join(", ")}`
  return `BREAKING: ${b.model} ${b.finding.kind}${b.finding.column === undefined ? "" : ` ${b.finding.column}`}${readers}${unresolved}`
}

/** A gc plan's review: every artifact approving lets apply evict. */
const evictionLines = (evictions: NonNullable<ReviewOutput["evictions"]>) => [
  `evicts ${evictions.length} artifact${evictions.length === 1 ? "" : "s"} (${evictions.reduce((n, e) => n + e.size_bytes, 0)} bytes; restorable with pcli restore):`,
  ...evictions.map((e) => `  ${e.model_name}  ${e.file_path}  ${e.size_bytes} bytes  blake3 ${e.blake3_hash.slice(0, 16)}  run ${e.run_id}`)
]

/** A gc plan's physical tables: DROP TABLE, not an eviction — the bytes go. */
const tableDropLines = (drops: NonNullable<ReviewOutput["table_drops"]>) => [
  `drops ${drops.length} physical table${drops.length === 1 ? "" : "s"} no environment reads (DROP TABLE; a run of the fingerprint rebuilds it):`,
  ...drops.map((d) => `  ${d.physical}  model ${d.model_name}  fingerprint ${d.fingerprint.slice(0, 16)}  built by run ${d.run_id}`)
]

export const reviewText = (o: ReviewOutput): string =>
  [
    `plan ${o.plan_id} (${o.kind})${o.base_ref === "" ? "" : `, against ${o.base_ref}`}${o.stale ? " — STALE" : ""}`,
    ...(o.evictions === undefined || o.evictions.length === 0 ? [] : evictionLines(o.evictions)),
    ...(o.table_drops === undefined ? [] : tableDropLines(o.table_drops)),
    ...(o.approved ? [`approved by ${approverText(o.approver)} at ${o.reviewed_at ?? "?"}: ${o.marker_path ?? ""}`] : []),
    ...(o.changes.length === 0 ? [] : ["changes:", ...changeLines(o.changes)]),
    ...(o.breaking_changes.length === 0 ? ["no breaking changes"] : o.breaking_changes.map(breakingLine)),
    o.message
  ].join("\n")

export const reviewStatusText = (o: ReviewStatusOutput): string =>
  o.reviewed
    ? `plan ${o.plan_id} (${o.kind}): reviewed by ${approverText(o.approver)} at ${o.reviewed_at ?? "?"} (${o.marker_path})`
    : `plan ${o.plan_id} (${o.kind}): not reviewed (no marker at ${o.marker_path})`

export const queueText = (o: ReviewQueueOutput): string =>
  [
    o.total === 0 ? "review queue: empty" : `review queue: ${o.total} pending, ranked by ${o.ranking}`,
    ...o.pending.map(
      (p, i) =>
        `${String(i + 1).padStart(3)}. ${p.plan_id.slice(0, 12)} ${p.kind.padEnd(11)} ${p.change_class.padEnd(24)} blast ${p.blast_radius ?? "?"} score ${p.score.toFixed(1)}${p.stale ? " STALE" : ""} — ${p.approve_command}`
    ),
    ...(o.notes ?? []).map((n) => `note: ${n}`)
  ].join("\n")

export const applyText = (o: ApplyOutput): string =>
  [
    `apply ${o.plan_id} (${o.kind}) as ${o.principal}${o.principal === o.invoker ? "" : ` (invoked by ${o.invoker})`}${o.reviewed_by === undefined ? "" : `, reviewed by ${approverText(o.reviewed_by)}`}`,
    ...policyLines(o.policy, o.evaluations),
    renderRunText(o.run).trimEnd(),
    ...o.verifications.map((v) => `verify_after of rule ${v.rule_id}: ${v.passed ? "passed" : "FAILED"} (${v.checks.map((c) => `${c.check}:${c.status}`).join(", ")})`)
  ].join("\n")

export const planListText = (o: PlanListOutput): string =>
  [
    o.count === 0 ? "plans: none" : `plans: ${o.count}, newest first`,
    ...o.plans.map((p) => `${p.plan_id.slice(0, 12)} ${p.kind.padEnd(11)} ${p.review.padEnd(10)} ${p.created_at} ${p.models.join(", ")}`),
    ...(o.notes ?? []).map((n) => `note: ${n}`)
  ].join("\n")
