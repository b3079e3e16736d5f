import type { Migration } from "../Migration"

/** Data products: the approval pointer, the fulfillment record and its append-only journal (local only). */
export const migration: Migration = {
  version: 4,
  name: "products",
  statements: [
    `CREATE TABLE product_approvals (
      product TEXT PRIMARY KEY,
      product_id TEXT NOT NULL,
      spec_digest TEXT NOT NULL,
      approver TEXT NOT NULL,
      approved_at TEXT NOT NULL,
      snapshot_path TEXT NOT NULL
    )`,
    `CREATE TABLE product_fulfillment (
      product TEXT PRIMARY KEY,
      state TEXT NOT NULL,
      journal_seq INTEGER NOT NULL,
      updated_at TEXT NOT NULL,
      record_json TEXT NOT NULL
    )`,
    `CREATE TABLE product_journal (
      product TEXT NOT NULL,
      seq INTEGER NOT NULL,
      at TEXT NOT NULL,
      event TEXT NOT NULL,
      from_state TEXT,
      to_state TEXT NOT NULL,
      spec_digest TEXT,
      plan_id TEXT,
      idempotency_key TEXT,
      PRIMARY KEY (product, seq)
    )`
  ]
}
