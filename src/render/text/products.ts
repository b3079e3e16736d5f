import type {
  ProductApproveOutput,
  ProductCompileOutput,
  ProductJournalOutput,
  ProductListEntry,
  ProductListOutput,
  ProductStatusOutput,
  ProductVerifyOutput
} from "../../schemas/products"

const indent = (text: string) => text.split("\n").map((l) => `  ${l}`).join("\n")

export const verifyText = (o: ProductVerifyOutput): string => {
  const verdict = o.status === "pass" ? "PASS" : o.status === "needs_input" ? "NEEDS INPUT" : "FAIL"
  const lines = [`product ${o.product_id} (${o.spec_digest})`, `verify: ${verdict}`, indent(o.reason)]
  if (o.propose_effect !== undefined) lines.push(`  agent propose: ${o.propose_effect}; agent apply: ${o.apply_effect}`)
  if (o.paste_block !== undefined) lines.push("", "paste this into pcli.toml:", "", o.paste_block)
  return lines.join("\n")
}

export const compileText = (o: ProductCompileOutput): string =>
  [
    `product ${o.product_id} (${o.spec_digest})`,
    `committed: ${o.phase === "lowered_contract" ? "Phase A (contract)" : "Phase B (sidecar merged)"} for model ${o.output_model}`,
    ...(o.recovery === "none" ? [] : [`recovered an interrupted commit: ${o.recovery.replace("_", " ")}`]),
    ...o.artifacts.map((a) => `  ${a.path}  ${a.sha256}`),
    `  ${o.manifest_path}  (manifest)`,
    ...(o.approval === undefined
      ? ["not approved yet (pcli product approve)"]
      : [`approved ${o.approval.spec_digest} by ${by(o.approval)}; working spec ${o.spec_matches_approval ? "matches" : "differs from"} the approval`])
  ].join("\n")

/** The approving principal with the git identity beside it (the git identity alone for older approvals). */
const by = (a: { readonly approver: string; readonly approved_by?: string | undefined }) =>
  a.approved_by === undefined ? a.approver : `${a.approved_by} (git ${a.approver})`

export const approveText = (o: ProductApproveOutput): string =>
  [
    o.already_approved ? `product ${o.product_id}: ${o.spec_digest} was already approved` : `product ${o.product_id}: approved ${o.spec_digest}`,
    `  approver ${by(o)} at ${o.approved_at}`,
    `  snapshot ${o.snapshot_path}`,
    `  state ${o.previous_state === undefined || o.already_approved ? o.state : `${o.previous_state} -> ${o.state}`}`
  ].join("\n")

const entryLines = (o: ProductListEntry): ReadonlyArray<string> => [
  o.spec_present ? `spec: ${o.spec_digest}${o.output_model === undefined ? "" : ` -> model ${o.output_model}`}` : "spec: absent",
  ...(o.spec_error === undefined ? [] : [`spec error: ${o.spec_error}`]),
  `lowering: ${o.committed_phase ?? "none"}${o.committed_spec_digest === undefined ? "" : ` (${o.committed_spec_digest})`}`,
  ...o.artifact_problems.map((p) => `problem: ${p}`),
  ...(o.staging_journal_present ? ["staging journal present: the next compile recovers it"] : []),
  o.approval === undefined
    ? "approval: none"
    : `approval: ${o.approval.spec_digest} by ${by(o.approval)} at ${o.approval.approved_at}; snapshot ${o.snapshot_intact ? "intact" : "NOT intact"}${o.spec_matches_approval === undefined ? "" : `; spec ${o.spec_matches_approval ? "matches" : "differs"}`}`,
  `state: ${o.fulfill_state ?? "none"}; journal rows: ${o.journal_rows}`
]

export const statusText = (o: ProductStatusOutput): string => [`product ${o.product}`, ...entryLines(o).map((l) => `  ${l}`)].join("\n")

export const listText = (o: ProductListOutput): string =>
  o.count === 0 ? "no products" : o.products.map((p) => [`${p.product}`, ...entryLines(p).map((l) => `  ${l}`)].join("\n")).join("\n\n")

export const journalText = (o: ProductJournalOutput): string =>
  o.count === 0
    ? `product ${o.product}: no journal rows`
    : [
        `product ${o.product}`,
        ...o.rows.map((r) => `  #${r.seq} ${r.at} ${r.event}: ${r.from_state ?? "-"} -> ${r.to_state}${r.spec_digest === null ? "" : ` (${r.spec_digest})`}`)
      ].join("\n")
