import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import { StateStore } from "./StateStore"

/**
 * The store's id (migration 010), or null when there is no store: a read command on a missing store
 * works on the build's empty image, whose id is nobody's.
 */
export const storeId: Effect.Effect<string | null> = Effect.gen(function* () {
  const info = yield* Effect.serviceOption(StateStore)
  const sql = yield* Effect.serviceOption(SqlClient.SqlClient)
  if (Option.isNone(info) || !info.value.persisted || Option.isNone(sql)) return null
  const rows = yield* sql.value<{ value: string }>`SELECT value FROM meta WHERE key = 'store_id'`.pipe(Effect.orElseSucceed(() => []))
  return rows[0]?.value ?? null
})
