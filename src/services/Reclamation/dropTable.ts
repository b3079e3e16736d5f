import { SqlClient } from "@effect/sql"
import { Clock, Data, Effect } from "effect"
import { Checkpoints } from "../../platform/Checkpoints"
import type { GcTableDrop } from "../../schemas/reclaim"
import { RunStoreFailed } from "../Runner/RunStore"
import { quoteIdent } from "../Runner/tests"
import { Warehouse, type WarehouseService } from "../Warehouse/Warehouse"
import type { CheckResult } from "./checks"
import type { Determinism } from "./determinism"
import { readCatalogFacts, readStoreFacts, tableChecks } from "./tables"

/** Why one planned table was not dropped; raised inside the transactions so both roll back. */
class TableKept extends Data.TaggedError("TableKept")<{ readonly reason: string; readonly failed: ReadonlyArray<CheckResult> }> {}

export type DropOutcome =
  | { readonly _tag: "dropped" }
  | { readonly _tag: "absent" }
  | { readonly _tag: "refused"; readonly reason: string; readonly failed: ReadonlyArray<CheckResult> }

const storeFailed = (e: { readonly message: string }) => new RunStoreFailed({ detail: e.message })

/**
 * Drops one planned table if, right now, it still passes the six checks against the live state
 * store and the warehouse's catalog (no view anywhere reads it). One store transaction holds the
 * re-check, the tombstone and the registry's retirement; inside it, one warehouse transaction holds
 * the catalog read and the DROP. A refusal or a failure rolls both back: nothing is dropped.
 */
export const dropTable = (entry: GcTableDrop, planId: string, minAgeDays: number, keepPromotions: number, determinism: ReadonlyMap<string, Determinism>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const wh = yield* Warehouse
    const checkpoints = yield* Checkpoints
    const now = yield* Clock.currentTimeMillis
    const dropIn = (conn: WarehouseService) =>
      Effect.gen(function* () {
        const store = yield* readStoreFacts(keepPromotions)
        const catalog = yield* readCatalogFacts(conn)
        if (!catalog.tables.has(entry.physical)) return { _tag: "absent" } as DropOutcome
        const row = store.registry.get(entry.physical)
        if (row !== undefined && row.run_id !== entry.run_id) {
          return yield* new TableKept({ reason: `rebuilt since planning (by run ${row.run_id}): the plan judged another build`, failed: [] })
        }
        const failing = tableChecks(entry.physical, store, catalog, determinism, minAgeDays, now).filter((c) => !c.passed)
        if (failing.length > 0 || row === undefined) {
          return yield* new TableKept({ reason: `no longer reclaimable at apply time — failing checks: ${failing.map((c) => c.check).join(", ")}`, failed: failing })
        }
        const dot = entry.physical.indexOf(".")
        yield* conn.execute(`DROP TABLE ${quoteIdent(entry.physical.slice(0, dot))}.${quoteIdent(entry.physical.slice(dot + 1))}`)
        yield* checkpoints.after("gc-table-dropped")
        yield* sql`INSERT INTO table_tombstones ${sql.insert({ ...row, physical: entry.physical, dropped_at: new Date(now).toISOString(), plan_id: planId })}`.pipe(
          Effect.mapError(storeFailed)
        )
        yield* sql`DELETE FROM physical_tables WHERE physical = ${row.physical}`.pipe(Effect.mapError(storeFailed))
        // A kept build state would describe a table that is gone: a later build of the name starts afresh.
        yield* sql`DELETE FROM physical_builds WHERE physical = ${row.physical}`.pipe(Effect.mapError(storeFailed))
        return { _tag: "dropped" } as DropOutcome
      })
    const inWarehouse =
      wh.kind === "embedded" && wh.session !== undefined
        ? Effect.scoped(
            Effect.gen(function* () {
              const conn = yield* wh.session!
              yield* conn.execute("BEGIN TRANSACTION")
              const outcome = yield* dropIn(conn).pipe(Effect.tapError(() => Effect.ignore(conn.execute("ROLLBACK"))))
              yield* conn.execute(outcome._tag === "dropped" ? "COMMIT" : "ROLLBACK")
              return outcome
            })
          )
        : // A remote warehouse has no transaction here: the catalog is read, then the table dropped.
          dropIn(wh)
    return yield* sql.withTransaction(inWarehouse).pipe(
      Effect.catchTag("TableKept", (k) => Effect.succeed<DropOutcome>({ _tag: "refused", reason: k.reason, failed: k.failed })),
      Effect.catchTag("SqlError", (e) => Effect.fail(storeFailed(e)))
    )
  })
