import type { SqlClient, SqlError } from "@effect/sql"
import type { Effect } from "effect"

/**
 * One forward, additive step of the state store's schema. Migrations run in version
 * order inside one transaction; each service owns the file that creates its tables.
 */
export interface Migration {
  readonly version: number
  readonly name: string
  readonly statements: ReadonlyArray<string>
  /** A data step SQL alone cannot express (hashing existing rows); runs after `statements`, same transaction. */
  readonly run?: (sql: SqlClient.SqlClient) => Effect.Effect<void, SqlError.SqlError>
}
