import type { AuditListOutput, AuditScorecardOutput, AuditVerifyOutput } from "../../schemas/audit"
import type { LedgerRow } from "../../schemas/ledger"

/** `class(id)`, or `unrecorded` for rows written before ids existed. */
export const actorLabel = (row: Pick<LedgerRow, "principal" | "principal_id">) =>
  row.principal_id === null ? "unrecorded" : `${row.principal}(${row.principal_id})`

const dash = (v: string | number | null) => (v === null ? "-" : String(v))

export const auditListText = (out: AuditListOutput): string => {
  const lines = out.entries.map((r) =>
    [r.timestamp, r.kind, actorLabel(r), dash(r.capability), dash(r.model), dash(r.effect), r.rule_id === null ? "-" : `rule ${r.rule_id}`, dash(r.plan_id), r.decision_ref].join("  ")
  )
  if (lines.length === 0) lines.push("no decisions recorded" + (out.since !== null || out.actor !== null || out.product !== null ? " match the filters" : ""))
  if (out.unattributed_skipped > 0) {
    lines.push(`note: ${out.unattributed_skipped} decision(s) recorded without a principal id were skipped; --actor unrecorded lists them`)
  }
  return lines.join("\n")
}

export const auditVerifyText = (out: AuditVerifyOutput): string =>
  out.first_bad === null
    ? `ledger chain intact: ${out.rows} row(s), head ${out.head_hash}`
    : [
        `ledger chain BROKEN at seq ${out.first_bad.seq}${out.first_bad.decision_ref === null ? "" : ` (${out.first_bad.decision_ref})`}: ${out.first_bad.reason}`,
        `${out.rows} row(s) verified before it; last good hash ${out.head_hash}`
      ].join("\n")

const pct = (r: number) => `${(r * 100).toFixed(1)}%`

export const scorecardText = (out: AuditScorecardOutput): string => {
  const head = `scorecard by ${out.by}, window ${out.window}${out.window_start === null ? "" : ` (since ${out.window_start})`}: ${out.evaluations} evaluation(s)`
  if (out.groups.length === 0) return `${head}\nno policy evaluations recorded`
  return [
    head,
    ...out.groups.map((g) => `${g.key}  evaluations ${g.evaluations}  accepted ${pct(g.acceptance_rate)}  denied ${pct(g.denial_rate)}  escalated ${pct(g.escalation_rate)}`)
  ].join("\n")
}
