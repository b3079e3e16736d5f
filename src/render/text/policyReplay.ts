import type { PolicyReplayOutput } from "../../schemas/policyReplay"

const rule = (id: number | null) => (id === null ? "default" : `rule ${id}`)

/** `pcli policy replay`: counts per direction, then one line per flipped (principal, capability, model). */
export const policyReplayText = (out: PolicyReplayOutput): string =>
  [
    `replayed ${out.evaluations} recorded evaluation(s)${out.since === null ? "" : ` since ${out.since}`} under ${out.proposed_config}: ${out.loosened} loosened, ${out.tightened} tightened, ${out.unchanged} unchanged${out.skipped === 0 ? "" : `, ${out.skipped} skipped`}`,
    ...(out.flips.length === 0 ? ["no decision would change"] : []),
    ...out.flips.map(
      (f) =>
        `${f.direction.toUpperCase()}  ${f.principal} ${f.capability} ${f.model}: ${f.before.effect} (${rule(f.before.rule_id)}) → ${f.after.effect} (${rule(f.after.rule_id)})  ×${f.decisions}  decisions ${f.first_decision_ref} … ${f.last_decision_ref}`
    ),
    ...out.notes.map((n) => `note: ${n}`)
  ].join("\n")
