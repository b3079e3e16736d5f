// The finding kinds that make a change breaking, apart from changes.ts (the SQL analysis): `review --status`
// counts a plan's breaking findings without loading the parser, the models or DuckDB.
import type { ModelChange } from "../../schemas/plans"
import type { FindingKind } from "../../schemas/plans"

export const BREAKING_FINDINGS: ReadonlySet<FindingKind> = new Set([
  "model_removed",
  "column_removed",
  "column_type_changed",
  "column_nullability_loosened",
  "target_changed",
  "contract_removed",
  "scope_attribute_changed"
])

/** Findings that make a change breaking, for review output. */
export const breakingFindings = (changes: ReadonlyArray<ModelChange>) =>
  changes.flatMap((c) => c.findings.filter((f) => BREAKING_FINDINGS.has(f.kind)).map((finding) => ({ model: c.model, finding })))
