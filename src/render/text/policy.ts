import type { PolicyCheckOutput, PolicyFreezeOutput, PolicyShowOutput, PolicyTestOutput, ShownRule } from "../../schemas/policy-output"

/** Text renderings of the policy outputs (the JSON is `encodeJson` in render/json). Each ends with a newline. */
export const checkText = (out: PolicyCheckOutput): string => {
  const a = out.model_attributes
  const attrs = [
    `tags={${Object.entries(a.tags).map(([k, v]) => `${k}=${v}`).join(",")}}`,
    `classifications=[${a.classifications.join(",")}]`,
    ...(a.layer === undefined ? [] : [`layer=${a.layer}`]),
    `contracted=${a.contracted}`,
    `downstreams=${a.downstreams}`,
    `blast_radius=${a.reachable_downstreams ?? "(uncomputable)"}`
  ]
  return [
    `effect: ${out.effect}${out.declared_effect === undefined ? "" : ` (the rules say ${out.declared_effect}; tightened now, see reason)`}`,
    `matched: ${out.matched_rule === null ? "(none)" : `rule ${out.matched_rule}`}`,
    `reason: ${out.reason}`,
    `attributes: ${attrs.join(" ")}`,
    "note: freezes and autonomy budgets can only tighten this result at enforcement",
    ""
  ].join("\n")
}

export const testText = (out: PolicyTestOutput): string => {
  const lines = [`policy test: ${out.total} scenario(s)`]
  for (const r of out.results) {
    lines.push(`[${r.passed ? "PASS" : "FAIL"}] ${r.name}`)
    if (!r.passed) {
      lines.push(`    ${r.principal} / ${r.capability} / ${r.model === "" ? '""' : r.model}: expected ${r.expected}, got ${r.actual}`)
      lines.push(`    matched: ${r.matched_rule === undefined ? "(none)" : `rule ${r.matched_rule}`}`)
      lines.push(`    reason: ${r.reason}`)
    }
  }
  lines.push(`${out.passed} passed, ${out.failed} failed`, "")
  return lines.join("\n")
}

const scopeText = (rule: ShownRule): string => {
  const s = rule.scope
  const parts = [
    ...(s.any ? ["any"] : []),
    ...(s.models.length > 0 ? [`models=[${s.models.join(",")}]`] : []),
    ...Object.entries(s.tags).map(([k, v]) => `tag.${k}=${v}`),
    ...(s.classifications.length > 0 ? [`classifications=[${s.classifications.join(",")}]`] : []),
    ...(s.exclude_classifications.length > 0 ? [`exclude_classifications=[${s.exclude_classifications.join(",")}]`] : []),
    ...(s.contracted === undefined ? [] : [`contracted=${s.contracted}`]),
    ...(s.layer === undefined ? [] : [`layer=${s.layer}`]),
    ...(s.max_downstreams === undefined ? [] : [`max_downstreams=${s.max_downstreams}`])
  ]
  return parts.join(" ")
}

export const showText = (out: PolicyShowOutput): string => {
  const lines = [
    out.configured
      ? `policy: [policy] version ${out.policy_version}`
      : "policy: no [policy] block (default posture: agent mutations require review, humans allowed; nothing is enforced)",
    `default agent effect: ${out.default_agent_effect}`,
    `rules: ${out.rules.length}`
  ]
  for (const r of out.rules) {
    const extras = [
      ...(r.verify_after === undefined ? [] : [`verify_after=[${r.verify_after.join(",")}]`]),
      ...(r.autonomy_budget === undefined ? [] : [`budget=${r.autonomy_budget.failures}/${r.autonomy_budget.window}`])
    ]
    lines.push(`  #${r.id}  ${r.principal}  ${r.capability}  ${r.effect}  ${[scopeText(r), ...extras].join("  ")}`)
  }
  lines.push(`freezes in force: ${out.freezes.length}`)
  for (const f of out.freezes) {
    lines.push(`  [${f.source}] ${f.principal ?? "agent+human"} on '${f.scope}'${f.since === undefined ? "" : ` since ${f.since}`} — ${f.reason}`)
  }
  lines.push(`freeze sources: ledger ${out.freeze_sources.ledger}, markers ${out.freeze_sources.markers}`, "")
  return lines.join("\n")
}

export const freezeText = (out: PolicyFreezeOutput): string => {
  const verb = out.lifted ? "unfrozen" : "frozen"
  const lines = out.entries.map((e) => `${e.principal} ${verb} on '${out.scope}' (${e.decision_ref}) — ${e.reason}`)
  return [...lines, ...(out.notes ?? []), ""].join("\n")
}
