import type { Migration } from "../Migration"

/** The meta table and the decision ledger, indexed for the filters audit and brief use. */
export const migration: Migration = {
  version: 1,
  name: "decision ledger",
  statements: [
    `CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
    `CREATE TABLE ledger (
       seq INTEGER PRIMARY KEY AUTOINCREMENT,
       decision_ref TEXT NOT NULL UNIQUE,
       kind TEXT NOT NULL,
       timestamp TEXT NOT NULL,
       principal TEXT NOT NULL,
       principal_id TEXT,
       principal_id_source TEXT,
       capability TEXT,
       model TEXT,
       effect TEXT,
       rule_id INTEGER,
       plan_id TEXT,
       reason TEXT
     )`,
    `CREATE INDEX ledger_timestamp ON ledger (timestamp, seq)`,
    `CREATE INDEX ledger_principal_id ON ledger (principal_id, seq)`,
    `CREATE INDEX ledger_model ON ledger (model, seq)`,
    `CREATE INDEX ledger_plan ON ledger (plan_id)`
  ]
}
