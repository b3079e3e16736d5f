import type { BranchDiffOutput, BranchListOutput, BranchOutput, PromoteApplyOutput, PromotePlanOutput } from "../../schemas/environment"

export const branchText = (o: BranchOutput) =>
  o.command === "branch_create" ? `Created branch ${o.branch.name} from ${o.branch.base}\n` : `Dropped branch ${o.branch.name}\n`

export const branchListText = (o: BranchListOutput) =>
  o.branches.length === 0
    ? "No branches\n"
    : o.branches.map((b) => `${b.name}  from ${b.base}  ${b.models} models  last run ${b.last_run_id ?? "never"}`).join("\n") + "\n"

const count = (n: number | null) => (n === null ? "-" : String(n))

export const branchDiffText = (o: BranchDiffOutput) =>
  [
    `Branch ${o.branch} against ${o.base}:`,
    ...o.models.map((m) => {
      const columns = m.schema_differences.map((d) => `${d.column}: ${d.base ?? "absent"} -> ${d.branch ?? "absent"}`)
      return `  ${m.status.padEnd(9)} ${m.model}  rows ${count(m.base_rows)} -> ${count(m.branch_rows)}${columns.length === 0 ? "" : `  schema: ${columns.join(", ")}`}`
    })
  ].join("\n") + "\n"

const swapLine = (v: PromotePlanOutput["views"][number]) =>
  `  ${v.schema}.${v.table}: ${v.from?.physical ?? "(none)"} -> ${v.to?.physical ?? "(dropped)"}`

export const promotePlanText = (o: PromotePlanOutput) =>
  [`Plan ${o.plan_id} (promote ${o.branch}, state ${o.state_hash.slice(0, 12)}): ${o.views.length} view(s) to swap`, ...o.views.map(swapLine), `Next: pcli review --approve ${o.plan_id}, then pcli apply ${o.plan_id}`].join("\n") + "\n"

export const promoteApplyText = (o: PromoteApplyOutput) =>
  [`Applied ${o.kind} ${o.plan_id}: ${o.views.length} view(s) swapped in one transaction, no table created`, ...o.views.map(swapLine)].join("\n") + "\n"
