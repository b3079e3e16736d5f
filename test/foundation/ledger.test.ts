import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Layer, Stream, TestClock } from "effect"
import { join } from "node:path"
import { Ledger, type LedgerFilter, type NewLedgerRow } from "../../src/services/Ledger/Ledger"
import * as LedgerSqlite from "../../src/services/Ledger/sqlite"
import * as StateStore from "../../src/services/StateStore/StateStore"
import { makeProject } from "../support/cli"

const ledgerAt = (path: string) =>
  LedgerSqlite.layer.pipe(Layer.provideMerge(StateStore.layer(path, "write")), Layer.provide(NodeContext.layer))

const row = (over: Partial<NewLedgerRow>): NewLedgerRow => ({
  kind: "evaluation",
  principal: "agent",
  principal_id: "bot-1",
  principal_id_source: "flag",
  capability: "apply",
  model: "orders",
  effect: "allow",
  rule_id: 0,
  plan_id: "plan-1",
  reason: "rule 0 allows",
  ...over
})

const all = (filter: LedgerFilter) =>
  Effect.flatMap(Ledger, (l) => Stream.runCollect(l.query(filter))).pipe(Effect.map(Chunk.toReadonlyArray))

describe("Ledger", () => {
  it.effect("appends rows with a timestamp, a decision_ref and verified=false; reads oldest first", () =>
    Effect.gen(function* () {
      const ledger = yield* Ledger
      yield* TestClock.setTime(Date.parse("2026-01-01T00:00:00Z"))
      const first = yield* ledger.append(row({ model: "orders" }))
      yield* TestClock.adjust("1 hour")
      yield* ledger.append(row({ model: "customers", principal_id: null, principal_id_source: null }))
      expect(first.timestamp).toBe("2026-01-01T00:00:00.000Z")
      expect(first.decision_ref).toBe("2026-01-01T00:00:00.000Z|plan-1|orders")
      expect(first.principal_id_verified).toBe(false)
      const rows = yield* all({})
      expect(rows.map((r) => r.model)).toEqual(["orders", "customers"])
      expect(rows[1]?.principal_id).toBeNull()
    }).pipe(Effect.provide(ledgerAt(join(makeProject(), "s.sqlite"))))
  )

  it.effect("two decisions in the same millisecond get distinct references", () =>
    Effect.gen(function* () {
      const ledger = yield* Ledger
      const a = yield* ledger.append(row({}))
      const b = yield* ledger.append(row({}))
      const c = yield* ledger.append(row({}))
      expect(new Set([a.decision_ref, b.decision_ref, c.decision_ref]).size).toBe(3)
      expect((yield* all({})).length).toBe(3)
    }).pipe(Effect.provide(ledgerAt(join(makeProject(), "s.sqlite"))))
  )

  it.effect("filters by time range, principal id (incl. rows without one), models, kinds and plan in SQL", () =>
    Effect.gen(function* () {
      const ledger = yield* Ledger
      yield* TestClock.setTime(Date.parse("2026-03-01T00:00:00Z"))
      yield* ledger.append(row({ principal_id: "alice", principal: "human", model: "orders" }))
      yield* TestClock.adjust("1 day")
      yield* ledger.append(row({ principal_id: null, principal_id_source: null, model: "customers" }))
      yield* TestClock.adjust("1 day")
      yield* ledger.append(row({ kind: "freeze", model: "layer=gold", effect: "deny", plan_id: "freeze:1" }))
      yield* TestClock.adjust("1 day")
      yield* ledger.append(row({ principal_id: "alice", principal: "human", model: "payments", plan_id: "plan-9" }))

      expect((yield* all({ since: new Date("2026-03-02T00:00:00Z") })).map((r) => r.model)).toEqual([
        "customers",
        "layer=gold",
        "payments"
      ])
      expect((yield* all({ until: new Date("2026-03-02T00:00:00Z") })).map((r) => r.model)).toEqual(["orders"])
      expect((yield* all({ principalId: "alice" })).map((r) => r.model)).toEqual(["orders", "payments"])
      expect((yield* all({ principalId: null })).map((r) => r.model)).toEqual(["customers"])
      expect((yield* all({ models: ["orders", "payments"] })).length).toBe(2)
      expect((yield* all({ kinds: ["freeze"] })).map((r) => r.plan_id)).toEqual(["freeze:1"])
      expect((yield* all({ planId: "plan-9" })).map((r) => r.model)).toEqual(["payments"])
      expect((yield* all({ models: [] })).length).toBe(0)
    }).pipe(Effect.provide(ledgerAt(join(makeProject(), "s.sqlite"))))
  )

  it.effect("streams past page boundaries without losing or repeating rows", () =>
    Effect.gen(function* () {
      const ledger = yield* Ledger
      for (let i = 0; i < 2345; i++) {
        yield* ledger.append(row({ model: `m${i}`, principal_id: i % 3 === 0 ? "carol" : "dave" }))
      }
      const rows = yield* all({})
      expect(rows.length).toBe(2345)
      expect(rows[0]?.model).toBe("m0")
      expect(rows[2344]?.model).toBe("m2344")
      expect(new Set(rows.map((r) => r.decision_ref)).size).toBe(2345)
      expect((yield* all({ principalId: "carol" })).length).toBe(782)
    }).pipe(Effect.provide(ledgerAt(join(makeProject(), "s.sqlite"))))
  )
})
