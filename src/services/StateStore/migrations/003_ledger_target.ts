import type { Migration } from "../Migration"

/**
 * Ledger rows record the actor and the principal a freeze is about separately, and store
 * `principal_id_verified` (always 0). Freeze and unfreeze rows written before this kept the
 * frozen principal in `principal`: it becomes their target (their actor's class is unknown).
 */
export const migration: Migration = {
  version: 3,
  name: "ledger actor and target",
  statements: [
    `ALTER TABLE ledger ADD COLUMN target_principal TEXT CHECK (target_principal IN ('human', 'agent'))`,
    `ALTER TABLE ledger ADD COLUMN principal_id_verified INTEGER NOT NULL DEFAULT 0 CHECK (principal_id_verified = 0)`,
    `UPDATE ledger SET target_principal = principal
       WHERE kind IN ('freeze', 'unfreeze') OR substr(plan_id, 1, 7) = 'freeze:' OR substr(plan_id, 1, 9) = 'unfreeze:'`
  ]
}
