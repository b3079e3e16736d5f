import type { BriefOutput } from "../../schemas/brief"

/** Plan ids (64 hex) longer than 12 characters are cut to 12 plus `…`; run ids and decision refs are given whole, so they can be pasted into `history` and `audit`. */
export const shortId = (id: string) => (id.length > 12 ? `${id.slice(0, 12)}…` : id)

interface Section {
  readonly availability: "available" | "no_data" | "unavailable"
  readonly note?: string | undefined
}

/** A section without signal says so in one line; an available one may carry a note under its lines. */
const body = (s: Section, lines: () => ReadonlyArray<string>): ReadonlyArray<string> => {
  if (s.availability === "unavailable") return [`_unavailable: ${s.note ?? "no recorded signal"}_`]
  if (s.availability === "no_data") return [`_no data in window: ${s.note ?? "nothing recorded"}_`]
  return [...lines(), ...(s.note === undefined ? [] : ["", `_${s.note}_`])]
}

const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`

/** `pcli brief` as Markdown: sections in a fixed order, every event line citing a run, plan or decision. */
export const briefMarkdown = (out: BriefOutput): string => {
  const sections: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
    [
      "Needs you",
      body(out.escalations, () => [
        `${out.escalations.total} escalation(s) wait for review, newest first:`,
        "",
        ...out.escalations.pending.map(
          (p) =>
            `- plan \`${shortId(p.plan_id)}\` ${p.capability ?? "-"} on ${p.model ?? "-"} by ${p.principal}(${p.principal_id ?? "unrecorded"}) at ${p.escalated_at}: \`pcli review ${p.plan_id} --approve\``
        )
      ])
    ],
    [
      "Agent activity",
      body(out.agent_activity, () => [
        `${out.agent_activity.total} evaluation(s): ${out.agent_activity.allow} allow, ${out.agent_activity.require_review} require_review, ${out.agent_activity.deny} deny`,
        "",
        "| principal | total | allow | require_review | deny |",
        "|---|---|---|---|---|",
        ...out.agent_activity.by_principal.map((p) => `| ${p.principal} | ${p.total} | ${p.allow} | ${p.require_review} | ${p.deny} |`),
        "",
        ...out.agent_activity.decisions.map(
          (d) =>
            `- ${d.timestamp} ${d.principal} ${d.capability ?? "-"} ${d.model ?? "-"} → ${d.effect ?? "-"}${d.rule_id === undefined ? "" : ` (rule ${d.rule_id})`} — decision \`${d.decision_ref}\`${d.plan_id === null ? "" : `, plan \`${shortId(d.plan_id)}\``}`
        )
      ])
    ],
    [
      "Runs",
      body(out.runs, () => [
        `${out.runs.total} run(s): ${out.runs.succeeded} succeeded, ${out.runs.failed} failed or partial`,
        "",
        ...out.runs.runs.map(
          (r) =>
            `- run \`${r.run_id}\` ${r.status} at ${r.started_at}: ${r.models_total} model(s), ${r.models_failed} failed, ${r.models_skipped} skipped${r.plan_id === null ? "" : `, plan \`${shortId(r.plan_id)}\``}`
        )
      ])
    ],
    ["Drift", body(out.drift, () => [])],
    [
      "Freshness",
      body(out.freshness, () =>
        out.freshness.checks.map((c) => `- ${c.model}${c.product === null ? "" : ` (product ${c.product})`} ${c.status} at ${c.checked_at}: ${c.detail}`)
      )
    ],
    [
      "Quality",
      body(out.quality, () => [
        `${out.quality.executions} model execution(s): ${out.quality.failed} failed, ${out.quality.warnings} warning(s)`,
        ...(out.quality.findings.length === 0 ? [] : [""]),
        ...out.quality.findings.map((f) => `- run \`${f.run_id}\` ${f.model} ${f.status}${f.error_code === null ? "" : ` [${f.error_code}]`}: ${f.detail}`)
      ])
    ],
    [
      "Cost",
      body(out.cost, () => [
        `${secs(out.cost.duration_ms)} of execution, ${out.cost.rows_affected} row(s) written`,
        "",
        ...out.cost.runs.map((c) => `- run \`${c.run_id}\`: ${secs(c.duration_ms)}, ${c.rows_affected} row(s)`)
      ])
    ],
    [
      "Autonomy",
      body(out.autonomy, () =>
        out.autonomy.active_freezes.map(
          (f) => `- freeze of ${f.principal ?? "every principal"} on \`${f.scope}\` since ${f.frozen_at ?? "unknown"}${f.plan_id === null ? "" : ` — plan \`${shortId(f.plan_id)}\``}`
        )
      )
    ],
    ["Scheduler", body(out.scheduler, () => [])]
  ]
  return [
    "# pcli brief",
    "",
    `_Window: ${out.since_timestamp ?? "beginning of history"} → ${out.generated_at}  (mode: ${out.since_mode})_`,
    "",
    `Ledger head: \`${out.ledger_head_hash}\``,
    ...sections.flatMap(([title, lines]) => ["", `## ${title}`, "", ...lines])
  ].join("\n")
}
