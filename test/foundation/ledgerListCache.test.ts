import { NodeContext } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Layer, Stream } from "effect"
import fc from "fast-check"
import { join } from "node:path"
import type { LedgerKind } from "../../src/schemas/ledger"
import { Ledger, type LedgerFilter, type NewLedgerRow } from "../../src/services/Ledger/Ledger"
import * as LedgerSqlite from "../../src/services/Ledger/sqlite"
import * as StateStore from "../../src/services/StateStore/StateStore"
import { makeProject } from "../support/cli"

// `Ledger.list` keeps unbounded answers between commits; these check it never answers stale.
const ledgerAt = (path: string) =>
  LedgerSqlite.layer.pipe(Layer.provideMerge(StateStore.layer(path, "write")), Layer.provide(NodeContext.layer))

const row = (kind: LedgerKind, model: string): NewLedgerRow => ({
  kind,
  principal: kind === "freeze" || kind === "unfreeze" ? "human" : "agent",
  principal_id: "bot-1",
  principal_id_source: "flag",
  capability: "apply",
  model,
  effect: "allow",
  rule_id: 0,
  plan_id: null,
  reason: "r"
})

const FREEZES: LedgerFilter = { kinds: ["freeze", "unfreeze"] }
const models = (rows: ReadonlyArray<{ readonly model: string | null }>) => rows.map((r) => r.model)
/** The uncached reference: the same filter through the streaming read. */
const streamed = (ledger: Ledger["Type"], filter: LedgerFilter) => Effect.map(Stream.runCollect(ledger.query(filter)), Chunk.toReadonlyArray)

describe("Ledger.list cache", () => {
  it.effect("sees this process's own append at once", () =>
    Effect.gen(function* () {
      const ledger = yield* Ledger
      expect(yield* ledger.list(FREEZES)).toEqual([])
      yield* ledger.append(row("freeze", "orders"))
      expect(models(yield* ledger.list(FREEZES))).toEqual(["orders"])
    }).pipe(Effect.provide(ledgerAt(join(makeProject(), "s.sqlite"))))
  )

  it.effect("sees another connection's commit at once", () => {
    const path = join(makeProject(), "s.sqlite")
    return Effect.gen(function* () {
      const ledger = yield* Ledger
      expect(yield* ledger.list(FREEZES)).toEqual([])
      // A second store connection, as another pcli process would open.
      yield* Effect.flatMap(Ledger, (other) => other.append(row("freeze", "customers"))).pipe(Effect.provide(ledgerAt(path)))
      expect(models(yield* ledger.list(FREEZES))).toEqual(["customers"])
    }).pipe(Effect.provide(ledgerAt(path)))
  })

  it.effect("never keeps rows a rolled-back transaction showed", () =>
    Effect.gen(function* () {
      const ledger = yield* Ledger
      const sql = yield* SqlClient.SqlClient
      expect(yield* ledger.list(FREEZES)).toEqual([])
      const inside = yield* sql
        .withTransaction(
          Effect.gen(function* () {
            yield* ledger.append(row("freeze", "orders"))
            const seen = yield* ledger.list(FREEZES)
            return yield* Effect.fail({ rolledBack: seen })
          })
        )
        .pipe(Effect.flip, Effect.flatMap((e) => ("rolledBack" in e ? Effect.succeed(e.rolledBack) : Effect.die(e))))
      expect(models(inside)).toEqual(["orders"])
      expect(yield* ledger.list(FREEZES)).toEqual([])
    }).pipe(Effect.provide(ledgerAt(join(makeProject(), "s.sqlite"))))
  )

  it.effect("answers as the uncached stream does over any order of own writes, other writes and reads", () =>
    Effect.gen(function* () {
      const op = fc.oneof(
        fc.record({ op: fc.constant("own" as const), kind: fc.constantFrom<LedgerKind>("freeze", "unfreeze", "evaluation"), model: fc.constantFrom("a", "b") }),
        fc.record({ op: fc.constant("other" as const), kind: fc.constantFrom<LedgerKind>("freeze", "evaluation"), model: fc.constantFrom("a", "c") }),
        fc.record({ op: fc.constant("read" as const), filter: fc.constantFrom<LedgerFilter>(FREEZES, {}, { kinds: ["evaluation"] }, { models: ["a"] }) })
      )
      const runs = fc.sample(fc.array(op, { minLength: 1, maxLength: 12 }), { numRuns: 15, seed: 27 })
      for (const ops of runs) {
        const path = join(makeProject(), "s.sqlite")
        yield* Effect.gen(function* () {
          const ledger = yield* Ledger
          for (const o of ops) {
            if (o.op === "own") yield* ledger.append(row(o.kind, o.model))
            else if (o.op === "other") yield* Effect.flatMap(Ledger, (other) => other.append(row(o.kind, o.model))).pipe(Effect.provide(ledgerAt(path)))
            else expect(yield* ledger.list(o.filter)).toEqual(yield* streamed(ledger, o.filter))
          }
        }).pipe(Effect.provide(ledgerAt(path)))
      }
    })
  )
})
