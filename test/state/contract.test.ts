import { NodeContext } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Exit, Layer, Stream, TestClock } from "effect"
import { join } from "node:path"
import { Ledger, type NewLedgerRow } from "../../src/services/Ledger/Ledger"
import * as LedgerSqlite from "../../src/services/Ledger/sqlite"
import * as PlanStore from "../../src/services/Plans/PlanStore"
import { storeId } from "../../src/services/StateStore/storeId"
import * as StateStore from "../../src/services/StateStore/StateStore"
import { CURRENT_SCHEMA_VERSION } from "../../src/services/StateStore/schemaVersion"
import { approveAs } from "../support/approvalRace"
import { makeProject } from "../support/cli"
import { pgSchemas, pgUnavailable } from "../support/postgres"

// The state store's contract, run on both backends (decision 36): whatever holds on SQLite holds on PostgreSQL.
const pgSkip = await pgUnavailable()
const freshSchema = pgSchemas("contract")

type Backend = "sqlite" | "postgres"

/** A new, empty store location on `backend`. */
const freshLocation = (backend: Backend): StateStore.StateLocation => {
  const path = join(makeProject(), "s.sqlite")
  return backend === "sqlite" ? { path, createParent: true } : { path, createParent: true, pg: freshSchema() }
}

const storeLayer = (location: StateStore.StateLocation, mode: StateStore.StateStoreMode = "write") =>
  LedgerSqlite.layer.pipe(Layer.provideMerge(StateStore.layer(location, mode)), Layer.provide(NodeContext.layer))

const row = (over: Partial<NewLedgerRow> = {}): NewLedgerRow => ({
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

const all = Effect.flatMap(Ledger, (l) => Stream.runCollect(l.query({}))).pipe(Effect.map(Chunk.toReadonlyArray))

describe.each<Backend>(["sqlite", "postgres"])("state store contract on %s", (backend) => {
  const skip = backend === "postgres" && pgSkip !== undefined

  it.effect.skipIf(skip)("appends in order with distinct references, filters and counts in SQL", () =>
    Effect.gen(function* () {
      const ledger = yield* Ledger
      yield* TestClock.setTime(Date.parse("2026-03-01T00:00:00Z"))
      const first = yield* ledger.append(row({ principal_id: "alice", principal: "human" }))
      const twin = yield* ledger.append(row({ principal_id: "alice", principal: "human" }))
      yield* TestClock.adjust("1 day")
      yield* ledger.append(row({ principal_id: null, principal_id_source: null, model: "customers" }))
      yield* ledger.append(row({ kind: "freeze", model: "layer=gold", effect: "deny", plan_id: "freeze:1", target_principal: "agent" }))
      expect(first.timestamp).toBe("2026-03-01T00:00:00.000Z")
      expect(twin.decision_ref).not.toBe(first.decision_ref)
      const batch = yield* ledger.appendAll([row(), row(), row()])
      expect(new Set([first, twin, ...batch].map((r) => r.decision_ref)).size).toBe(5)
      expect((yield* all).map((r) => r.model)).toEqual(["orders", "orders", "customers", "layer=gold", "orders", "orders", "orders"])
      expect((yield* ledger.list({ since: new Date("2026-03-02T00:00:00Z") })).map((r) => r.model)).toEqual(["customers", "layer=gold", "orders", "orders", "orders"])
      expect((yield* ledger.list({ principalId: null })).map((r) => r.model)).toEqual(["customers"])
      expect((yield* ledger.list({ kinds: ["freeze"] }))[0]?.target_principal).toBe("agent")
      expect(yield* ledger.count({})).toBe(7)
      expect(yield* ledger.count({ models: ["orders"] })).toBe(5)
      const tallies = yield* ledger.outcomes("principal", ["evaluation"], undefined)
      const byId = Object.fromEntries(tallies.map((t) => [String(t.principal_id), [t.total, t.allow, t.deny]]))
      expect(byId).toEqual({ alice: [2, 2, 0], "bot-1": [3, 3, 0], null: [1, 1, 0] })
      const groups = yield* ledger.evaluationGroups(undefined)
      expect(groups.reduce((n, g) => n + g.count, 0)).toBe(6)
    }).pipe(Effect.provide(storeLayer(freshLocation(backend))))
  )

  it.effect.skipIf(skip)("verifies the chain, and finds an edited row and a deleted tail", () =>
    Effect.gen(function* () {
      const ledger = yield* Ledger
      const sql = yield* SqlClient.SqlClient
      for (let i = 0; i < 5; i++) yield* ledger.append(row({ reason: `r${i}` }))
      const intact = yield* ledger.verify
      expect(intact).toMatchObject({ intact: true, rows: 5 })
      expect(yield* ledger.headHash).toBe(intact.head_hash)
      const sealed = yield* ledger.chainedAt(3)
      expect(sealed._tag === "Some" && sealed.value.chained).toBe(true)
      // On pg the database refuses ledger edits, the owner's too (decisions.md 36): the tamperer here is a superuser who turns that off.
      if (backend === "postgres") yield* sql`ALTER TABLE ledger DISABLE TRIGGER ledger_append_only`
      yield* sql`DELETE FROM ledger WHERE seq = 5`
      const truncated = yield* ledger.verify
      expect(truncated.intact).toBe(false)
      expect(truncated.first_bad?.reason).toContain("at the end are missing")
      yield* sql`UPDATE ledger SET reason = 'edited' WHERE seq = 2`
      const edited = yield* ledger.verify
      expect(edited).toMatchObject({ intact: false, first_bad: { seq: 2 } })
    }).pipe(Effect.provide(storeLayer(freshLocation(backend))))
  )

  // pg sends an append's values as literals (one message of several statements has no parameters): any text must arrive as written.
  it.effect.skipIf(skip)("text arrives byte for byte; a refused append writes nothing, leaves no gap, and the next one chains", () =>
    Effect.gen(function* () {
      const ledger = yield* Ledger
      const awkward = ["it's", "back\\slash \\' E'x'", "$$ $pcli$ -- /* ; COMMIT; DROP TABLE ledger;", "tab\tline\nend\r", "ünï €😀", "%_|#2|$", ""]
      const first = yield* ledger.appendAll(awkward.map((reason, i) => row({ reason, model: i === 3 ? "a'b\\c" : "orders", plan_id: reason })))
      const refused = yield* Effect.exit(ledger.append(row({ kind: "freeze", target_principal: "robot" as never })))
      expect(Exit.isFailure(refused)).toBe(true)
      const after = yield* ledger.append(row({ reason: "after" }))
      const stored = yield* all
      expect(stored.map((r) => r.reason)).toEqual([...awkward, "after"])
      expect(stored[3]?.model).toBe("a'b\\c")
      expect(stored.slice(0, awkward.length)).toEqual(first)
      expect(stored[awkward.length]).toEqual(after)
      const sealed = yield* ledger.chainedAt(awkward.length + 1)
      expect(sealed._tag === "Some" && sealed.value.seq).toBe(awkward.length + 1)
      expect(yield* ledger.verify).toMatchObject({ intact: true, rows: awkward.length + 1 })
    }).pipe(Effect.provide(storeLayer(freshLocation(backend))))
  )

  it.live.skipIf(skip)("writers on separate connections keep one chain: contiguous seqs, time in seq order", () =>
    Effect.gen(function* () {
      const location = freshLocation(backend)
      const writer = (w: number) =>
        Effect.flatMap(Ledger, (l) => Effect.forEach(Array.from({ length: 10 }, (_, i) => i), (i) => l.append(row({ principal_id: `w${w}`, reason: `${i}` })))).pipe(
          Effect.provide(storeLayer(location))
        )
      // One store made first, so the writers race on appends, not on creating it.
      yield* Effect.provide(Effect.void, storeLayer(location))
      yield* Effect.all([0, 1, 2, 3, 4, 5, 6, 7].map(writer), { concurrency: "unbounded" })
      const check = Effect.gen(function* () {
        const ledger = yield* Ledger
        const sql = yield* SqlClient.SqlClient
        const report = yield* ledger.verify
        const rows = yield* sql<{ seq: number; timestamp: string }>`SELECT seq, timestamp FROM ledger ORDER BY seq`
        return { report, rows }
      })
      const { report, rows } = yield* Effect.provide(check, storeLayer(location))
      expect(report).toMatchObject({ intact: true, rows: 80 })
      expect(rows.map((r) => r.seq)).toEqual(Array.from({ length: 80 }, (_, i) => i + 1))
      expect(rows.map((r) => r.timestamp)).toEqual([...rows.map((r) => r.timestamp)].sort())
    })
  )

  it.live.skipIf(skip)("a cached list sees another connection's append", () =>
    Effect.gen(function* () {
      const location = freshLocation(backend)
      const other = Effect.flatMap(Ledger, (l) => l.append(row({ kind: "freeze", effect: "deny", model: "any", plan_id: "freeze:x" }))).pipe(Effect.provide(storeLayer(location)))
      yield* Effect.provide(Effect.void, storeLayer(location))
      const seen = yield* Effect.gen(function* () {
        const ledger = yield* Ledger
        const before = (yield* ledger.list({ kinds: ["freeze"] })).length
        yield* other
        const after = (yield* ledger.list({ kinds: ["freeze"] })).length
        return [before, after]
      }).pipe(Effect.provide(storeLayer(location)))
      expect(seen).toEqual([0, 1])
    })
  )

  it.effect.skipIf(skip)("has an id and the current version; a read of a missing store creates nothing", () =>
    Effect.gen(function* () {
      const location = freshLocation(backend)
      const missing = yield* Effect.flatMap(StateStore.StateStore, (s) => Effect.succeed(s)).pipe(Effect.provide(storeLayer(location, "read")))
      expect(missing.persisted).toBe(false)
      const info = yield* Effect.provide(
        Effect.all([StateStore.StateStore, storeId]),
        storeLayer(location)
      )
      expect(info[0]).toMatchObject({ backend, persisted: true, schemaVersion: CURRENT_SCHEMA_VERSION })
      expect(info[1]).toMatch(/^[0-9a-f]{32}$/)
    })
  )

  it.effect.skipIf(skip)("a store whose minimum reader is newer is refused", () =>
    Effect.gen(function* () {
      const location = freshLocation(backend)
      yield* Effect.provide(
        Effect.flatMap(SqlClient.SqlClient, (sql) =>
          backend === "postgres"
            ? sql`UPDATE meta SET value = '99' WHERE key IN ('schema_version', 'min_reader_version')`
            : sql`UPDATE meta SET value = '99' WHERE key = 'schema_version'`
        ),
        storeLayer(location)
      )
      const exit = yield* Effect.exit(Effect.provide(Effect.void, storeLayer(location, "read")))
      expect(Exit.isFailure(exit) && JSON.stringify(exit.cause)).toContain("StateStoreNewer")
    })
  )
})

describe.skipIf(pgSkip !== undefined)("PostgreSQL only", () => {
  it.effect("a new store has every table and column a migrated SQLite store has (the baseline keeps up with the migrations)", () =>
    Effect.gen(function* () {
      const columnsOf = (backend: Backend) =>
        Effect.provide(
          Effect.flatMap(SqlClient.SqlClient, (sql) =>
            backend === "sqlite"
              ? sql<{ t: string; c: string }>`SELECT m.name AS t, p.name AS c FROM sqlite_master m, pragma_table_info(m.name) p WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%'`
              : sql<{ t: string; c: string }>`SELECT table_name AS t, column_name AS c FROM information_schema.columns WHERE table_schema = current_schema()`
          ),
          storeLayer(freshLocation(backend))
        ).pipe(Effect.map((rows) => new Set(rows.map((r) => `${r.t}.${r.c}`))))
      const sqlite = yield* columnsOf("sqlite")
      const postgres = yield* columnsOf("postgres")
      expect([...sqlite].filter((c) => !postgres.has(c))).toEqual([])
    })
  )
  // Issue 33's "8 concurrent approvals: exactly 1 winner", on eight connections (bench/state races eight processes).
  it.live("eight concurrent approvals of one plan: one wins, seven are approval-taken naming it, one approval row", () =>
    Effect.gen(function* () {
      const location = freshLocation("postgres")
      yield* Effect.provide(Effect.void, storeLayer(location))
      const planId = "e".repeat(64)
      const approver = (a: number) =>
        Effect.gen(function* () {
          const approved = approveAs(planId, a, "test")
          return yield* Effect.match(approved, { onSuccess: () => "won", onFailure: (e) => `${(e as { code?: string }).code}: ${e.message}` })
        }).pipe(Effect.provide(PlanStore.layer(makeProject())), Effect.provide(storeLayer(location)), Effect.provide(NodeContext.layer))
      const outcomes = yield* Effect.all(Array.from({ length: 8 }, (_, a) => approver(a)), { concurrency: "unbounded" })
      expect(outcomes.filter((o) => o === "won")).toHaveLength(1)
      const losers = outcomes.filter((o) => o !== "won")
      expect(losers).toHaveLength(7)
      const approvals = yield* Effect.provide(Effect.flatMap(Ledger, (l) => l.list({ kinds: ["approval"] })), storeLayer(location))
      expect(approvals).toHaveLength(1)
      for (const loser of losers) expect(loser).toContain(`approval-taken: plan ${planId} was approved by human(${approvals[0]!.principal_id})`)
    })
  )

  it.effect("an additive migration's store (newer version, old minimum reader) still opens", () =>
    Effect.gen(function* () {
      const location = freshLocation("postgres")
      yield* Effect.provide(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`UPDATE meta SET value = '99' WHERE key = 'schema_version'`), storeLayer(location))
      const rows = yield* Effect.provide(Effect.flatMap(Ledger, (l) => Effect.zipRight(l.append(row()), l.count({}))), storeLayer(location))
      expect(rows).toBe(1)
    })
  )
})
