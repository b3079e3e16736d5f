import type { BranchDiffOutput, BranchListOutput, BranchOutput } from "../../schemas/environment"

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
