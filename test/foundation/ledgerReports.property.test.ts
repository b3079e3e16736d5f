// The grouped report reads (scorecard outcomes per kind, replay's two-level evaluation groups) against
// the plain single GROUP BY each replaced, on generated ledgers: the same groups, the same numbers.
import { NodeContext } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import fc from "fast-check"
import { join } from "node:path"
import type { LedgerKind } from "../../src/schemas/ledger"
import { Ledger } from "../../src/services/Ledger/Ledger"
import * as LedgerSqlite from "../../src/services/Ledger/sqlite"
import * as StateStore from "../../src/services/StateStore/StateStore"
import { makeProject } from "../support/cli"

const few = <T>(...xs: ReadonlyArray<T>) => fc.constantFrom(...xs)
const generatedRow = fc.record({
  kind: few<LedgerKind>("evaluation", "escalation", "freeze", "verification", "approval"),
  principal: few("agent", "human"),
  principal_id: few("p1", "p2", null),
  capability: few("apply", "propose", null),
  model: few("orders", "customers", "m_%", null),
  effect: few("allow", "require_review", "deny", null),
  rule_id: few(0, 1, 2, null),
  day: fc.integer({ min: 1, max: 28 }),
  ref: fc.string({ maxLength: 6 })
})

const ledgerLayer = () =>
  LedgerSqlite.layer.pipe(Layer.provideMerge(StateStore.layer(join(makeProject(), "state.sqlite"), "write")), Layer.provide(NodeContext.layer))

const insert = (rows: ReadonlyArray<typeof generatedRow extends fc.Arbitrary<infer T> ? T : never>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    for (const [i, r] of rows.entries()) {
      const timestamp = `2026-02-${String(r.day).padStart(2, "0")}T00:00:00.000Z`
      const { day: _day, ref, ...fields } = r
      yield* sql`INSERT INTO ledger ${sql.insert({ ...fields, timestamp, decision_ref: `${timestamp}|${ref}|${i}`, principal_id_source: null, reason: "r", plan_id: null, row_hash: "" })}`
    }
  })

const GROUP = { principal: "principal, principal_id", rule: "rule_id", scope: "model" } as const
const byGroup = (a: Record<string, unknown>, b: Record<string, unknown>) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1)

describe("ledger report reads agree with a single GROUP BY", () => {
  it.effect("outcomes (per kind, summed) and evaluation groups (two-level) equal the plain queries", () =>
    Effect.promise(() =>
      fc.assert(
        fc.asyncProperty(
          fc.array(generatedRow, { maxLength: 40 }),
          few<"principal" | "rule" | "scope">("principal", "rule", "scope"),
          fc.subarray<LedgerKind>(["evaluation", "escalation", "freeze"]),
          fc.option(fc.integer({ min: 1, max: 28 }), { nil: undefined }),
          (rows, by, kinds, sinceDay) =>
            Effect.runPromise(
              Effect.gen(function* () {
                yield* insert(rows)
                const sql = yield* SqlClient.SqlClient
                const ledger = yield* Ledger
                const since = sinceDay === undefined ? undefined : new Date(Date.UTC(2026, 1, sinceDay))
                const sinceSql = since === undefined ? sql`` : sql`AND timestamp >= ${since.toISOString()}`

                const outcomes = yield* ledger.outcomes(by, kinds, since)
                const plainOutcomes = yield* sql<Record<string, unknown>>`SELECT min(principal) AS principal, min(principal_id) AS principal_id,
                    min(rule_id) AS rule_id, min(model) AS model, count(*) AS total,
                    sum(kind <> 'escalation' AND effect = 'allow') AS allow,
                    sum(kind = 'escalation' OR effect = 'require_review') AS require_review,
                    sum(kind <> 'escalation' AND effect = 'deny') AS deny
                  FROM ledger WHERE ${sql.in("kind", kinds)} ${sinceSql} GROUP BY ${sql.literal(GROUP[by])}`
                const numbers = (r: Record<string, unknown>) => ({
                  ...r,
                  total: Number(r["total"]),
                  allow: Number(r["allow"] ?? 0),
                  require_review: Number(r["require_review"] ?? 0),
                  deny: Number(r["deny"] ?? 0)
                })
                expect([...outcomes].map((r) => ({ ...r })).sort(byGroup)).toEqual(plainOutcomes.map(numbers).sort(byGroup))

                const groups = yield* ledger.evaluationGroups(since)
                const plainGroups = yield* sql<Record<string, unknown>>`SELECT principal, capability, model, count(*) AS count,
                    min(decision_ref) AS first_decision_ref, max(decision_ref) AS last_decision_ref
                  FROM ledger WHERE kind = 'evaluation' ${sinceSql}
                  GROUP BY principal, capability, model ORDER BY principal, capability, model`
                expect(groups).toEqual(plainGroups.map((r) => ({ ...r, count: Number(r["count"]) })))
              }).pipe(Effect.provide(ledgerLayer()))
            )
        ),
        { numRuns: 40 }
      )
    )
  )
})
