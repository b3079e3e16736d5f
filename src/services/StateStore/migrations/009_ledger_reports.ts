import type { Migration } from "../Migration"

/**
 * One covering index for the ledger's grouped reports. With the kind fixed, the scorecard reads it in
 * (principal, principal_id) order without sorting; scorecard by rule or scope and policy replay's
 * (principal, capability, model) groups sort index entries only, never visiting the table.
 */
export const migration: Migration = {
  version: 9,
  name: "ledger reports index",
  statements: [
    `CREATE INDEX IF NOT EXISTS ledger_reports
       ON ledger (kind, principal, principal_id, capability, model, rule_id, effect, timestamp, decision_ref)`
  ]
}
