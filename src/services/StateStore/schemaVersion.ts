/**
 * The store's current schema version: the last migration's (test/foundation/schemaVersion.test.ts checks it).
 * Apart from the migrations so that a read of a current store loads none of them.
 */
export const CURRENT_SCHEMA_VERSION = 15
