import { NodeContext } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Layer, Stream, TestClock } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { pathToFileURL } from "node:url"
import { Ledger } from "../../src/services/Ledger/Ledger"
import * as LedgerSqlite from "../../src/services/Ledger/sqlite"
import { policyFreeze } from "../../src/commands/policyFreeze"
import type { ActingPrincipal } from "../../src/services/Principal/Principal"
import { policyShow } from "../../src/commands/policyShow"
import { policyUnfreeze } from "../../src/commands/policyUnfreeze"
import { PolicyEngine, type PolicySettings } from "../../src/services/PolicyEngine/PolicyEngine"
import * as StateStore from "../../src/services/StateStore/StateStore"
import { loadPolicy, model } from "./support/config"
import { engineLayer } from "./support/engine"
import { brokenLedgerLayer, seededLedgerLayer } from "./support/seededLedger"
import { actingAs } from "./support/principal"

const T0 = Date.parse("2026-03-01T00:00:00.000Z")
const human: ActingPrincipal = { class: "human", id: "alice", source: "flag" }
const agent: ActingPrincipal = { class: "agent", id: "bot-7", source: "env" }
const POLICY = loadPolicy(`[policy]\nversion = 1\ndefault_agent_effect = "allow"\n`)

const settings = (extra: Partial<PolicySettings> = {}): PolicySettings => ({ configPresent: true, policy: POLICY, ledger: { kind: "remote" }, ...extra })
const allRows = Effect.flatMap(Ledger, (l) => Effect.map(Stream.runCollect(l.query({})), Chunk.toReadonlyArray))
const tempDir = () => fs.mkdtempSync(nodePath.join(os.tmpdir(), "pcli-freeze-"))

/** The real SQLite ledger with a trigger that makes some inserts fail, as a full disk would. */
const ledgerRefusing = (when: string) => {
  const path = nodePath.join(tempDir(), "state.sqlite")
  const trigger = Layer.effectDiscard(
    Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql.unsafe(`CREATE TRIGGER refuse BEFORE INSERT ON ledger WHEN ${when} BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END`)
    ).pipe(Effect.orDie)
  )
  return LedgerSqlite.layer.pipe(Layer.provide(Layer.provideMerge(trigger, StateStore.layer(path, "write"))), Layer.provide(NodeContext.layer), Layer.orDie)
}

describe("freeze semantics (decisions.md 31)", () => {
  it.effect("any principal may freeze: an agent's freeze records the agent as actor and the target separately", () =>
    Effect.gen(function* () {
      const out = yield* actingAs(agent)(policyFreeze({ principal: "human", scope: "layer=gold", reason: "agent saw drift" }))
      expect(out.entries.map((e) => [e.principal, e.effect, e.reason])).toEqual([["human", "deny", "agent saw drift"]])
      const [row] = yield* allRows
      expect([row!.principal, row!.principal_id, row!.principal_id_source, row!.target_principal]).toEqual(["agent", "bot-7", "env", "human"])
    }).pipe(Effect.provide(engineLayer(settings()))))

  it.effect("freezing an already frozen (principal, scope) says so, keeps the first reason and records nothing new", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(T0)
      yield* actingAs(human)(policyFreeze({ principal: "agent", scope: "any", reason: "first" }))
      yield* TestClock.adjust("1 second")
      const again = yield* actingAs(human)(policyFreeze({ principal: "agent", scope: "any", reason: "second" }))
      expect(again.entries).toEqual([])
      expect(again.already_frozen).toEqual([
        { source: "ledger", principal: "agent", scope: "any", reason: "first", since: "2026-03-01T00:00:00.000Z", plan_id: "freeze:agent:2026-03-01T00:00:00.000Z", frozen_by: "human(alice)" }
      ])
      expect(again.notes).toEqual([
        "agent is already frozen on scope 'any' since 2026-03-01T00:00:00.000Z (freeze:agent:2026-03-01T00:00:00.000Z); the first reason stands: first"
      ])
      expect(yield* allRows).toHaveLength(1)
      // Both principals: only the one not yet frozen gets a row.
      const both = yield* actingAs(human)(policyFreeze({ reason: "third" }))
      expect(both.entries.map((e) => [e.principal, e.reason])).toEqual([["human", "third"]])
      expect(both.already_frozen?.map((f) => f.principal)).toEqual(["agent"])
      expect(yield* allRows).toHaveLength(2)
      expect((yield* policyShow).freezes.map((f) => [f.principal, f.reason])).toEqual([
        ["agent", "first"],
        ["human", "third"]
      ])
    }).pipe(Effect.provide(engineLayer(settings()))))

  it.effect("a freeze of both principals is one transaction: when the second row fails, neither is recorded", () =>
    Effect.gen(function* () {
      const failure = yield* Effect.flip(actingAs(human)(policyFreeze({ scope: "any" })))
      expect([failure.code, failure.message]).toEqual(["ledger-unavailable", "decision ledger: database or disk is full"])
      expect(yield* allRows).toEqual([])
    }).pipe(Effect.provide(engineLayer(settings(), ledgerRefusing("NEW.target_principal = 'human'")))))

  it.effect("scope selectors: 1,024 characters freeze and unfreeze; 1,025 or 50,000 are selector-too-long and write nothing", () =>
    Effect.gen(function* () {
      const atLimit = `model=${"x".repeat(1018)}`
      const emoji = `model=${"😀".repeat(1018)}` // 1,024 code points, 2,042 UTF-16 units
      yield* actingAs(human)(policyFreeze({ principal: "agent", scope: atLimit }))
      yield* actingAs(human)(policyFreeze({ principal: "agent", scope: emoji }))
      const lifted = yield* actingAs(human)(policyUnfreeze({ principal: "agent", scope: atLimit }))
      expect(lifted.entries).toHaveLength(1)
      const before = yield* allRows
      for (const scope of [`${atLimit}x`, `model=${"y".repeat(50_000)}`]) {
        for (const run of [policyFreeze, policyUnfreeze]) {
          const error = yield* Effect.flip(actingAs(human)(run({ scope })))
          expect(error.code).toBe("selector-too-long")
          expect(error.message).toBe(`scope selector is ${scope.length} characters; the limit is 1024`)
        }
      }
      expect(yield* allRows).toEqual(before)
      expect((yield* policyShow).freezes.map((f) => f.scope)).toEqual([emoji])
    }).pipe(Effect.provide(engineLayer(settings()))))

  it.effect("only a human unfreezes: an agent's unfreeze is refused, ledgered as a refusal, and the freeze stays in force", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(T0)
      yield* actingAs(human)(policyFreeze({ principal: "agent", scope: "layer=gold" }))
      yield* TestClock.adjust("1 second")
      const refused = yield* Effect.flip(actingAs(agent)(policyUnfreeze({ principal: "agent", scope: "layer=gold" })))
      expect([refused.code, refused.message]).toEqual([
        "unfreeze-needs-human",
        "agent(bot-7) may not unfreeze agent on scope 'layer=gold': only a human may lift a freeze (run it as PCLI_PRINCIPAL=human); refusal recorded in the decision ledger"
      ])
      const rows = yield* allRows
      expect(rows.map((r) => [r.kind, r.principal, r.principal_id, r.target_principal, r.model, r.effect, r.plan_id])).toEqual([
        ["freeze", "human", "alice", "agent", "layer=gold", "deny", "freeze:agent:2026-03-01T00:00:00.000Z"],
        ["refusal", "agent", "bot-7", "agent", "layer=gold", "deny", "unfreeze-refused:agent:2026-03-01T00:00:01.000Z"]
      ])
      expect((yield* policyShow).freezes).toHaveLength(1)
      const engine = yield* PolicyEngine
      const gate = yield* engine.gate("agent", "apply", [model({ name: "fct", tags: { layer: "gold" } })])
      expect(gate._tag === "Evaluated" && gate.verdicts[0]!.effect).toBe("deny")
      // No principal named: one refusal per principal, in one transaction. Bad input is checked first and records nothing.
      yield* Effect.flip(actingAs(agent)(policyUnfreeze({ scope: "layer=gold" })))
      expect((yield* allRows).filter((r) => r.kind === "refusal").map((r) => r.target_principal)).toEqual(["agent", "agent", "human"])
      expect((yield* Effect.flip(actingAs(agent)(policyUnfreeze({ scope: "gold" })))).code).toBe("invalid-selector")
      expect(yield* allRows).toHaveLength(4)
    }).pipe(Effect.provide(engineLayer(settings()))))

  it.effect("an agent's unfreeze is refused even when the refusal cannot be recorded, and says so", () =>
    Effect.gen(function* () {
      const refused = yield* Effect.flip(actingAs(agent)(policyUnfreeze({ scope: "any" })))
      expect(refused.code).toBe("unfreeze-needs-human")
      expect(refused.message).toMatch(/; the refusal could not be recorded: disk I\/O error$/)
    }).pipe(Effect.provide(engineLayer(settings(), brokenLedgerLayer))))
})

describe("ledger row and durable marker stay consistent (markers first, then rows)", () => {
  const tier = () => {
    const dir = tempDir()
    return { dir, url: pathToFileURL(dir + "/").href }
  }
  const withMarkers = { ...POLICY, freeze_marker_writes: true }

  it.effect("a marker write that fails records no ledger row", () => {
    const { dir, url } = tier()
    fs.writeFileSync(nodePath.join(dir, "freeze"), "a file where the freeze/ directory should be")
    return Effect.gen(function* () {
      const failure = yield* Effect.flip(actingAs(human)(policyFreeze({ scope: "any" })))
      expect(failure.code).toBe("freeze-marker-write-failed")
      expect(failure.message).toMatch(new RegExp(`^cannot write freeze marker to ${url}: put freeze/[0-9a-f-]+\\.json: `))
      expect(yield* allRows).toEqual([])
    }).pipe(Effect.provide(engineLayer(settings({ policy: withMarkers, objectStoreUrl: url }))))
  })

  // (An unfreeze whose marker PUT fails while listing works is tested against the GCS emulator in markers.test.ts.)
  it.effect("an unfreeze over a tier that cannot be read lifts nothing: no row, and the freeze stays listed", () => {
    const { dir, url } = tier()
    return Effect.gen(function* () {
      yield* actingAs(human)(policyFreeze({ principal: "agent", scope: "any" }))
      fs.writeFileSync(nodePath.join(dir, "unfreeze"), "blocked")
      const failure = yield* Effect.flip(actingAs(human)(policyUnfreeze({ principal: "agent", scope: "any" })))
      expect(failure.code).toBe("freeze-source-unreadable")
      fs.rmSync(nodePath.join(dir, "unfreeze"))
      expect((yield* allRows).map((r) => r.kind)).toEqual(["freeze"])
      expect((yield* policyShow).freezes.map((f) => f.source)).toEqual(["ledger", "marker"])
    }).pipe(Effect.provide(engineLayer(settings({ policy: withMarkers, objectStoreUrl: url }))))
  })

  it("a freeze already in the ledger but missing its marker gets the marker, not a second row", async () => {
    const { dir, url } = tier()
    const ledger = seededLedgerLayer()
    await Effect.runPromise(actingAs(human)(policyFreeze({ principal: "agent", scope: "any", reason: "first" })).pipe(Effect.provide(engineLayer(settings({ objectStoreUrl: url }), ledger))))
    expect(fs.existsSync(nodePath.join(dir, "freeze"))).toBe(false)
    const out = await Effect.runPromise(
      Effect.zip(actingAs(human)(policyFreeze({ principal: "agent", scope: "any", reason: "second" })), allRows).pipe(
        Effect.provide(engineLayer(settings({ policy: withMarkers, objectStoreUrl: url }), ledger))
      )
    )
    expect([out[0].entries, out[0].already_frozen?.map((f) => f.reason), out[1].length]).toEqual([[], ["first"], 1])
    const [marker] = fs.readdirSync(nodePath.join(dir, "freeze"))
    expect(JSON.parse(fs.readFileSync(nodePath.join(dir, "freeze", marker!), "utf8"))).toMatchObject({ principal: "agent", scope: "any", reason: "first" })
  })
})
