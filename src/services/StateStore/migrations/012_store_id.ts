import type { Migration } from "../Migration"

/**
 * The store's identity (decisions 35): a random id made once, when the store is created or first
 * migrated, that a governed warehouse records so that it can tell its governing store from another.
 */
export const migration: Migration = {
  version: 12,
  name: "store id",
  statements: [`INSERT INTO meta (key, value) VALUES ('store_id', lower(hex(randomblob(16)))) ON CONFLICT (key) DO NOTHING`]
}
