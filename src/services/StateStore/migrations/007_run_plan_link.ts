import type { Migration } from "../Migration"

/**
 * Runs started by `pcli apply` name their plan (custody chain), and the ledger gains the indexes
 * the audit filters need at a million rows. Runs recorded before carry the plan in their trigger.
 */
export const migration: Migration = {
  version: 7,
  name: "run plan link and ledger filter indexes",
  statements: [
    `ALTER TABLE runs ADD COLUMN plan_id TEXT`,
    `UPDATE runs SET plan_id = substr(trigger, instr(trigger, ':') + 1)
       WHERE substr(trigger, 1, 6) = 'apply:' OR substr(trigger, 1, 9) = 'backfill:'`,
    `CREATE INDEX runs_plan ON runs (plan_id)`,
    `CREATE INDEX ledger_kind ON ledger (kind, seq)`,
    `CREATE INDEX ledger_principal_time ON ledger (principal_id, timestamp)`
  ]
}
