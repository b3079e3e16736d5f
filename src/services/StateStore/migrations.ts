import type { Migration } from "./Migration"
import { migration as ledger } from "./migrations/001_ledger"

/** Every migration, in version order. The last version is the store's current version. */
export const migrations: ReadonlyArray<Migration> = [ledger]

export const CURRENT_SCHEMA_VERSION = migrations[migrations.length - 1]!.version
