import { Chunk, Stream } from "effect"
import type { AuditListOutput, AuditScorecardOutput, AuditVerifyOutput, CustodyOutput } from "../../schemas/audit"
import type { LedgerRow } from "../../schemas/ledger"

/** `class(id)`, or `unrecorded` for rows written before ids existed. */
export const actorLabel = (row: Pick<LedgerRow, "principal" | "principal_id">) =>
  row.principal_id === null ? "unrecorded" : `${row.principal}(${row.principal_id})`

const dash = (v: string | number | null) => (v === null ? "-" : String(v))

const REASON_MAX = 60
const AUDIT_HEADER = ["TIME", "ACTOR", "CAPABILITY", "MODEL", "EFFECT", "RULE", "PLAN", "REASON"] as const

/** Full 64-hex plan ids are cut to 12 + `…` (decisions.md); other ids print whole. */
const shortPlan = (planId: string | null) => (planId !== null && /^[0-9a-f]{64}$/.test(planId) ? `${planId.slice(0, 12)}…` : dash(planId))

/** Text mode only: a reason on one line, long ones cut with `…` (JSON keeps it whole). */
const shortReason = (reason: string | null) => {
  if (reason === null) return "-"
  const flat = reason.replace(/\s+/g, " ").trim()
  return flat.length > REASON_MAX ? `${flat.slice(0, REASON_MAX - 1)}…` : flat
}

/** One decision as table cells: time, class(id), capability, model, effect, rule, short plan id, reason. */
export const auditEntryCells = (r: LedgerRow): ReadonlyArray<string> =>
  [r.timestamp, actorLabel(r), dash(r.capability), dash(r.model), dash(r.effect), dash(r.rule_id), shortPlan(r.plan_id), shortReason(r.reason)]

/** Column widths that fit the header and these rows. */
const widthsOf = (rows: ReadonlyArray<ReadonlyArray<string>>, at: ReadonlyArray<number> = AUDIT_HEADER.map((h) => h.length)): ReadonlyArray<number> =>
  at.map((w, i) => Math.max(w, ...rows.map((cells) => cells[i]!.length)))

/** Cells padded to the widths, two spaces apart; the last column is not padded. */
const tableLine = (cells: ReadonlyArray<string>, widths: ReadonlyArray<number>) =>
  cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join("  ").trimEnd()

/** What follows the entries: a line when none matched, the unattributed note. */
export const auditListFooter = (out: AuditListOutput, anyEntry: boolean): ReadonlyArray<string> => [
  ...(anyEntry ? [] : ["no decisions recorded" + (out.since !== null || out.actor !== null || out.product !== null ? " match the filters" : "")]),
  ...(out.unattributed_skipped > 0
    ? [`note: ${out.unattributed_skipped} decision(s) recorded without a principal id were skipped; --actor unrecorded lists them`]
    : [])
]

/** The decisions as a table with a header row, columns aligned. */
export const auditListText = (out: AuditListOutput): string => {
  const rows = out.entries.map(auditEntryCells)
  const widths = widthsOf(rows)
  const table = rows.length === 0 ? [] : [tableLine(AUDIT_HEADER, widths), ...rows.map((cells) => tableLine(cells, widths))]
  return [...table, ...auditListFooter(out, rows.length > 0)].join("\n")
}

/**
 * `auditListText` as a stream of chunks, printed as the rows arrive. Widths come from the first
 * 512 rows and only grow after: memory stays flat, and any page up to that size aligns exactly.
 */
export const auditListTextStream = <E, R>(head: AuditListOutput, entries: Stream.Stream<LedgerRow, E, R>): Stream.Stream<string, E, R> => {
  let widths: ReadonlyArray<number> | undefined
  return Stream.concat(
    entries.pipe(
      Stream.map(auditEntryCells),
      Stream.grouped(512),
      Stream.map((chunk) => {
        const rows = Chunk.toReadonlyArray(chunk)
        const first = widths === undefined
        widths = widthsOf(rows, widths)
        const lines = rows.map((cells) => `${tableLine(cells, widths!)}\n`).join("")
        return first ? `${tableLine(AUDIT_HEADER, widths)}\n${lines}` : lines
      })
    ),
    Stream.suspend(() => Stream.make(auditListFooter(head, widths !== undefined).map((l) => `${l}\n`).join("")))
  )
}

const witnessLine = (w: NonNullable<AuditVerifyOutput["witnesses"]>[number]): string =>
  `witness ${w.source}: ${w.seq === null ? "" : `seq ${w.seq} `}${w.status.replaceAll("_", " ")}${w.detail === undefined ? "" : ` (${w.detail})`}`

export const auditVerifyText = (out: AuditVerifyOutput): string =>
  [
    ...(out.first_bad === null
      ? [`ledger chain intact: ${out.rows} row(s), head ${out.head_hash}`]
      : [
          `ledger chain BROKEN at seq ${out.first_bad.seq}${out.first_bad.decision_ref === null ? "" : ` (${out.first_bad.decision_ref})`}: ${out.first_bad.reason}`,
          `${out.rows} row(s) verified before it; last good hash ${out.head_hash}`
        ]),
    ...(out.witnesses ?? []).map(witnessLine)
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

const linkNote = (l: { readonly availability: string; readonly note?: string | undefined }) =>
  l.availability === "available" ? "" : `  (${l.availability}${l.note === undefined ? "" : `: ${l.note}`})`

/** The custody chain, one link per block, every line citing a decision, plan or run. */
export const custodyText = (out: CustodyOutput): string => {
  const p = out.plan
  return [
    `custody of ${out.subject_kind} ${out.subject}${out.resolved ? "" : " (unresolved: nothing recorded or compiled knows it)"}`,
    `plan${linkNote(p)}`,
    ...(p.plan_id === null ? [] : [`  plan ${p.plan_id}${p.kind === null ? "" : ` (${p.kind})`}`]),
    ...(p.proposer === null ? [] : [`  proposed by ${p.proposer} at ${p.created_at}`]),
    ...p.changes.map((c) => `  change ${c.model}: ${c.change_class}`),
    ...(p.approval === null ? [] : [`  approved by ${p.approval.approver}${p.approval.git_identity === undefined ? "" : ` (git ${p.approval.git_identity})`} at ${p.approval.approved_at} (decision ${p.approval.decision_ref})`]),
    `decisions: ${out.decisions.total}${linkNote(out.decisions)}`,
    ...out.decisions.entries.map(
      (r) => `  ${r.timestamp}  ${r.kind}  ${actorLabel(r)}  ${dash(r.capability)}  ${dash(r.model)}  ${dash(r.effect)}${r.rule_id === null ? "" : `  rule ${r.rule_id}`}  decision ${r.decision_ref}`
    ),
    `runs: ${out.runs.total}${linkNote(out.runs)}`,
    ...out.runs.runs.map((r) => `  run ${r.run_id}  ${r.status}  ${r.started_at}${r.plan_id === null ? "" : `  plan ${r.plan_id}`}`),
    `verify_after: ${out.verify_after.total}${linkNote(out.verify_after)}`,
    ...out.verify_after.entries.map((v) => `  ${v.passed ? "passed" : "FAILED"}  ${v.timestamp}  decision ${v.decision_ref}: ${dash(v.reason)}`),
    `blast radius: ${out.blast_radius.total} downstream model(s)${linkNote(out.blast_radius)}`,
    ...(out.blast_radius.direct.length === 0 ? [] : [`  direct: ${out.blast_radius.direct.join(", ")}`]),
    ...(out.blast_radius.transitive.length === 0 ? [] : [`  transitive: ${out.blast_radius.transitive.join(", ")}`])
  ].join("\n")
}
