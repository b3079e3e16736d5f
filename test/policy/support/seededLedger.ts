import { NodeContext } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Stream } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Ledger, type LedgerRow, LedgerUnavailable } from "../../../src/services/Ledger/Ledger"
import * as LedgerSqlite from "../../../src/services/Ledger/sqlite"
import * as StateStore from "../../../src/services/StateStore/StateStore"

/** The real SQLite ledger on a fresh temp store, seeded with fixture rows as stored. */
export const seededLedgerLayer = (seed: ReadonlyArray<LedgerRow> = []) => {
  const path = join(mkdtempSync(join(tmpdir(), "pcli-policy-ledger-")), "state.sqlite")
  const seeded = Layer.effectDiscard(
    Effect.flatMap(SqlClient.SqlClient, (sql) =>
      seed.length === 0
        ? Effect.void
        : sql`INSERT INTO ledger ${sql.insert(seed.map((stored) => ({ ...stored, principal_id_verified: 0 })))}`.pipe(Effect.orDie)
    )
  )
  return LedgerSqlite.layer.pipe(
    Layer.provide(Layer.provideMerge(seeded, StateStore.layer(path, "write"))),
    Layer.provide(NodeContext.layer),
    Layer.orDie
  )
}

/** A ledger whose every read and write fails. */
export const brokenLedgerLayer = Layer.succeed(
  Ledger,
  Ledger.of({
    append: () => Effect.fail(new LedgerUnavailable({ detail: "disk I/O error" })),
    appendAll: () => Effect.fail(new LedgerUnavailable({ detail: "disk I/O error" })),
    appendSealed: () => Effect.fail(new LedgerUnavailable({ detail: "disk I/O error" })),
    chainedAt: () => Effect.fail(new LedgerUnavailable({ detail: "disk I/O error" })),
    query: () => Stream.fail(new LedgerUnavailable({ detail: "disk I/O error" })),
    list: () => Effect.fail(new LedgerUnavailable({ detail: "disk I/O error" })),
    verify: Effect.fail(new LedgerUnavailable({ detail: "disk I/O error" })),
    evaluationGroups: () => Effect.fail(new LedgerUnavailable({ detail: "disk I/O error" })),
    count: () => Effect.fail(new LedgerUnavailable({ detail: "disk I/O error" })),
    outcomes: () => Effect.fail(new LedgerUnavailable({ detail: "disk I/O error" })),
    headHash: Effect.fail(new LedgerUnavailable({ detail: "disk I/O error" }))
  })
)

let counter = 0
/** A stored row for fixtures. */
export const row = (partial: Partial<LedgerRow> & Pick<LedgerRow, "kind" | "timestamp">): LedgerRow => ({
  decision_ref: `${partial.timestamp}|${partial.plan_id ?? ""}|${counter++}`,
  principal: "agent",
  principal_id: "tester",
  principal_id_source: "flag",
  principal_id_verified: false,
  target_principal: null,
  capability: "apply",
  model: "*",
  effect: "allow",
  rule_id: null,
  plan_id: null,
  reason: "fixture",
  ...partial
})
