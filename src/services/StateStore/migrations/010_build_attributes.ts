import type { Migration } from "../Migration"

/**
 * Each model's last successful build records the attributes policy scopes read (tags, column
 * classifications, contracted) as it was built, so the gate can judge a model against what it was
 * built as and what it is proposed to become (decisions.md 33). Builds before this carry none.
 */
export const migration: Migration = {
  version: 10,
  name: "build attributes",
  statements: [`ALTER TABLE model_builds ADD COLUMN attributes_json TEXT`]
}
