import { NodeContext } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Layer, Schema, Stream, TestClock } from "effect"
import fc from "fast-check"
import { join } from "node:path"
import { LedgerRow as LedgerRowSchema } from "../../src/schemas/ledger"
import { Ledger, type LedgerFilter, type NewLedgerRow } from "../../src/services/Ledger/Ledger"
import * as LedgerSqlite from "../../src/services/Ledger/sqlite"
import { CURRENT_SCHEMA_VERSION } from "../../src/services/StateStore/migrations"
import * as StateStore from "../../src/services/StateStore/StateStore"
import { makeProject } from "../support/cli"
import { readSchemaVersion, writeStoreAtVersion } from "../support/stateStore"

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

describe("Ledger.list is Ledger.query collected", () => {
  const KINDS = ["evaluation", "escalation", "freeze", "unfreeze", "verification", "approval"] as const
  // Timestamps out of seq order (clocks step back), ids with and without, few models: every filter matters.
  const seed = Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.forEach([0, 1, 2], (batch) =>
      sql`INSERT INTO ledger ${sql.insert(
        Array.from({ length: 800 }, (_, k) => {
          const i = batch * 800 + k
          const ts = new Date(Date.UTC(2026, 0, 1) + ((i * 7919) % 2400) * 3_600_000).toISOString()
          return { decision_ref: `${ts}|p${i % 50}|m${i % 7}|${i}`, kind: KINDS[i % KINDS.length]!, timestamp: ts, principal: i % 2 === 0 ? "agent" : "human", principal_id: i % 5 === 0 ? null : `id${i % 4}`, principal_id_source: i % 5 === 0 ? null : "flag", capability: "apply", model: `m${i % 7}`, effect: i % 3 === 0 ? "deny" : "allow", rule_id: i % 4, plan_id: `p${i % 50}`, reason: "seeded" }
        })
      )}`
    )
  ).pipe(Effect.orDie)

  const day = fc.integer({ min: -5, max: 105 }).map((d) => new Date(Date.UTC(2026, 0, 1) + d * 86_400_000))
  const filter: fc.Arbitrary<LedgerFilter> = fc.record(
    {
      since: day,
      until: day,
      principalId: fc.constantFrom(null, "id1", "id3", "nobody"),
      models: fc.subarray(["m0", "m3", "m6", "m9"]),
      kinds: fc.subarray([...KINDS]),
      planId: fc.constantFrom("p1", "p7", "p99")
    },
    { requiredKeys: [] }
  )

  it("for any filter, the same rows in the same order, across page boundaries", async () => {
    const path = join(makeProject(), "s.sqlite")
    await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const ctx = yield* Layer.build(ledgerAt(path))
          yield* Effect.provide(seed, ctx)
          const both = (f: LedgerFilter) => Effect.runPromise(Effect.provide(Effect.all([Effect.flatMap(Ledger, (l) => l.list(f)), all(f)]), ctx))
          const [everything] = yield* Effect.promise(() => both({}))
          expect(everything.length).toBe(2400)
          yield* Effect.promise(() =>
            fc.assert(
              fc.asyncProperty(filter, async (f) => {
                const [listed, streamed] = await both(f)
                expect(listed).toEqual(streamed)
              }),
              { numRuns: 150 }
            )
          )
        })
      )
    )
  })
})

const rawRows = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql<{ target_principal: string | null; principal_id_verified: number; principal: string; model: string }>`SELECT principal, target_principal, principal_id_verified, model FROM ledger ORDER BY seq`
)

describe("Ledger rows: actor, target, verified flag, appendAll", () => {
  it.effect("stores principal_id_verified as 0 and target_principal in their own columns; rows decode as the LedgerRow schema", () =>
    Effect.gen(function* () {
      const ledger = yield* Ledger
      yield* ledger.append(row({ kind: "freeze", principal: "human", principal_id: "alice", target_principal: "agent", model: "any", plan_id: "freeze:agent:t" }))
      yield* ledger.append(row({}))
      expect(yield* rawRows).toEqual([
        { principal: "human", target_principal: "agent", principal_id_verified: 0, model: "any" },
        { principal: "agent", target_principal: null, principal_id_verified: 0, model: "orders" }
      ])
      const rows = yield* all({})
      expect(rows.map((r) => [r.principal, r.target_principal, r.principal_id_verified])).toEqual([
        ["human", "agent", false],
        ["agent", null, false]
      ])
      for (const r of rows) expect(Schema.is(LedgerRowSchema)(r)).toBe(true)
    }).pipe(Effect.provide(ledgerAt(join(makeProject(), "s.sqlite"))))
  )

  it.effect("appendAll writes every row with one timestamp, or none when one insert fails", () =>
    Effect.gen(function* () {
      const ledger = yield* Ledger
      const sql = yield* SqlClient.SqlClient
      yield* TestClock.setTime(Date.parse("2026-04-01T00:00:00Z"))
      const both = yield* ledger.appendAll([row({ model: "a" }), row({ model: "b" })])
      expect(both.map((r) => r.timestamp)).toEqual(["2026-04-01T00:00:00.000Z", "2026-04-01T00:00:00.000Z"])
      // A real SQLite failure on the second insert of a batch.
      yield* sql.unsafe(`CREATE TRIGGER refuse_boom BEFORE INSERT ON ledger WHEN NEW.model = 'boom' BEGIN SELECT RAISE(ABORT, 'boom refused'); END`)
      const failure = yield* Effect.flip(ledger.appendAll([row({ model: "c" }), row({ model: "boom" })]))
      expect([failure.code, failure.message]).toEqual(["ledger-unavailable", "decision ledger: boom refused"])
      expect((yield* all({})).map((r) => r.model)).toEqual(["a", "b"])
    }).pipe(Effect.provide(ledgerAt(join(makeProject(), "s.sqlite"))))
  )

  it.effect("same-millisecond references never treat % or _ in a scope as a pattern, and a 50,000-character model is fine", () =>
    Effect.gen(function* () {
      const ledger = yield* Ledger
      yield* TestClock.setTime(Date.parse("2026-05-01T00:00:00Z"))
      const refs = yield* ledger.appendAll([row({ model: "abc" }), row({ model: "abc" }), row({ model: "a_c" }), row({ model: "a%" })])
      expect(refs.map((r) => r.decision_ref)).toEqual([
        "2026-05-01T00:00:00.000Z|plan-1|abc",
        "2026-05-01T00:00:00.000Z|plan-1|abc|#2",
        "2026-05-01T00:00:00.000Z|plan-1|a_c",
        "2026-05-01T00:00:00.000Z|plan-1|a%"
      ])
      const huge = "m".repeat(50_000)
      const twice = yield* ledger.appendAll([row({ model: huge }), row({ model: huge })])
      expect(twice[1]!.decision_ref.endsWith("|#2")).toBe(true)
      expect((yield* all({ models: [huge] })).length).toBe(2)
    }).pipe(Effect.provide(ledgerAt(join(makeProject(), "s.sqlite"))))
  )

  it.effect("migration 003: an older store's freeze rows get their frozen principal as target; every row reads verified=false", () =>
    Effect.gen(function* () {
      const path = join(makeProject(), "old.sqlite")
      yield* writeStoreAtVersion(path, 2)
      yield* Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql`INSERT INTO ledger ${sql.insert([
          { decision_ref: "t1|freeze:human:t1|any", kind: "freeze", timestamp: "t1", principal: "human", principal_id: "alice", principal_id_source: "flag", capability: "apply", model: "any", effect: "deny", rule_id: null, plan_id: "freeze:human:t1", reason: "old" },
          { decision_ref: "t2|plan|m", kind: "evaluation", timestamp: "t2", principal: "agent", principal_id: null, principal_id_source: null, capability: "apply", model: "m", effect: "allow", rule_id: 0, plan_id: "plan", reason: "r" }
        ])}`
      ).pipe(Effect.provide(SqliteClient.layer({ filename: path })), Effect.orDie)
      const rows = yield* all({}).pipe(Effect.provide(ledgerAt(path)))
      expect(rows.map((r) => [r.kind, r.principal, r.target_principal, r.principal_id_verified])).toEqual([
        ["freeze", "human", "human", false],
        ["evaluation", "agent", null, false]
      ])
      expect(yield* readSchemaVersion(path)).toBe(CURRENT_SCHEMA_VERSION)
    })
  )
})
