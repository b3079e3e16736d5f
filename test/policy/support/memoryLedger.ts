import { Clock, Effect, Layer, Ref, Stream } from "effect"
import { Ledger, type LedgerFilter, type LedgerRow, LedgerUnavailable, type NewLedgerRow } from "../../../src/services/Ledger/Ledger"

/** A Ledger over an in-memory array (tests only; the real one is SQLite). */
export const memoryLedger = (seed: ReadonlyArray<LedgerRow> = []) =>
  Effect.gen(function* () {
    const rows = yield* Ref.make<ReadonlyArray<LedgerRow>>(seed)
    const matches = (filter: LedgerFilter) => (row: LedgerRow) =>
      (filter.since === undefined || row.timestamp >= filter.since.toISOString()) &&
      (filter.until === undefined || row.timestamp <= filter.until.toISOString()) &&
      (filter.principalId === undefined || row.principal_id === filter.principalId) &&
      (filter.models === undefined || (row.model !== null && filter.models.includes(row.model))) &&
      (filter.kinds === undefined || filter.kinds.includes(row.kind)) &&
      (filter.planId === undefined || row.plan_id === filter.planId)
    const service = Ledger.of({
      append: (row: NewLedgerRow) =>
        Effect.gen(function* () {
          const timestamp = new Date(yield* Clock.currentTimeMillis).toISOString()
          const stored: LedgerRow = {
            ...row,
            timestamp,
            principal_id_verified: false,
            decision_ref: `${timestamp}|${row.plan_id ?? ""}|${row.model ?? ""}`
          }
          yield* Ref.update(rows, (all) => [...all, stored])
          return stored
        }),
      query: (filter) =>
        Stream.unwrap(Effect.map(Ref.get(rows), (all) => Stream.fromIterable(all.filter(matches(filter)))))
    })
    return { service, rows }
  })

export const memoryLedgerLayer = (seed: ReadonlyArray<LedgerRow> = []) =>
  Layer.effect(Ledger, Effect.map(memoryLedger(seed), (m) => m.service))

/** A ledger whose every read and write fails. */
export const brokenLedgerLayer = Layer.succeed(
  Ledger,
  Ledger.of({
    append: () => Effect.fail(new LedgerUnavailable({ detail: "disk I/O error" })),
    query: () => Stream.fail(new LedgerUnavailable({ detail: "disk I/O error" }))
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
  capability: "apply",
  model: "*",
  effect: "allow",
  rule_id: null,
  plan_id: null,
  reason: "fixture",
  ...partial
})
