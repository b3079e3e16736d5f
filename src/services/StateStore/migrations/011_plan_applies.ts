import type { Migration } from "../Migration"

/**
 * decisions.md 34: a plan applies once. `plan_applies` holds one claim per plan id, taken before
 * anything is built (the primary key makes two concurrent applies build once); product approvals
 * record the acting principal beside the git identity.
 */
export const migration: Migration = {
  version: 11,
  name: "plan applies and approving principals",
  statements: [
    `CREATE TABLE plan_applies (
      plan_id TEXT PRIMARY KEY,
      status TEXT NOT NULL CHECK (status IN ('applying', 'applied', 'failed')),
      approval_seq INTEGER,
      principal TEXT NOT NULL,
      principal_id TEXT,
      claimed_at TEXT NOT NULL,
      finished_at TEXT
    )`,
    `ALTER TABLE product_approvals ADD COLUMN approved_by TEXT`
  ]
}
