import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Stream, TestClock } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { pathToFileURL } from "node:url"
import { Ledger, type LedgerRow } from "../../src/services/Ledger/Ledger"
import { PolicyEngine, type PolicySettings } from "../../src/services/PolicyEngine/PolicyEngine"
import { loadPolicy, model } from "./support/config"
import { engineLayer } from "./support/engine"
import { brokenLedgerLayer, seededLedgerLayer, row } from "./support/seededLedger"

const DAY = 86_400_000
const T0 = Date.parse("2026-03-01T00:00:00.000Z")
const iso = (ms: number) => new Date(ms).toISOString()

const gold = model({ name: "fct_orders", tags: { layer: "gold" }, classifications: ["pii"] })
const bronze = model({ name: "stg_events", tags: { layer: "bronze" } })

const allowAll = loadPolicy(`[policy]
version = 1
default_agent_effect = "allow"
[[policy.rules]]
principal = "agent"
capability = "apply"
effect = "allow"
scope = { any = true }
verify_after = ["row_count"]
autonomy_budget = { failures = 2, window = "1d" }
`)

const settings = (extra: Partial<PolicySettings> = {}): PolicySettings => ({
  configPresent: true,
  policy: allowAll,
  ledger: { kind: "remote" },
  ...extra
})

const gateFor = (principal: "agent" | "human", models = [gold, bronze]) =>
  Effect.gen(function* () {
    const engine = yield* PolicyEngine
    const outcome = yield* engine.gate(principal, "apply", models)
    if (outcome._tag !== "Evaluated") throw new Error("expected an evaluation")
    return outcome.verdicts
  })

const freezeRow = (principal: "agent" | "human", scope: string, at: number, kind: "freeze" | "unfreeze" = "freeze") =>
  row({ kind, principal, model: scope, timestamp: iso(at), effect: kind === "freeze" ? "deny" : "allow", plan_id: `${kind}:${principal}:${iso(at)}` })

describe("dynamic layer: ledger freezes", () => {
  it.effect("a freeze on a selector forces deny only for that principal and matching models", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(T0 + DAY)
      const agent = yield* gateFor("agent")
      expect(agent.map((v) => v.effect)).toEqual(["deny", "allow"])
      expect(agent[0]!.reason).toMatch(/policy freeze active for agent on scope 'layer=gold' — forced to deny \(freeze:agent:/)
      expect(agent[0]!.static.effect).toBe("allow")
      const human = yield* gateFor("human")
      expect(human.map((v) => v.effect)).toEqual(["allow", "allow"])
    }).pipe(Effect.provide(engineLayer(settings(), seededLedgerLayer([freezeRow("agent", "layer=gold", T0)])))))

  it.effect("the latest row per (principal, scope string) wins; unfreeze lifts, refreeze reapplies", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(T0 + DAY)
      expect((yield* gateFor("agent"))[0]!.effect).toBe("deny")
    }).pipe(
      Effect.provide(
        engineLayer(
          settings(),
          seededLedgerLayer([
            freezeRow("agent", "any", T0),
            freezeRow("agent", "any", T0 + 1000, "unfreeze"),
            freezeRow("agent", "classification=pii", T0 + 2000)
          ])
        )
      )
    ))

  it.effect("an unfreeze of a different scope string lifts nothing", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(T0 + DAY)
      expect((yield* gateFor("agent")).map((v) => v.effect)).toEqual(["deny", "deny"])
    }).pipe(Effect.provide(engineLayer(settings(), seededLedgerLayer([freezeRow("agent", "any", T0), freezeRow("agent", "", T0 + 1, "unfreeze")])))))

  it.effect("a freeze denies even under the default posture (no matching rule)", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(T0 + DAY)
      const engine = yield* PolicyEngine
      const outcome = yield* engine.gate("agent", "gc", [bronze])
      expect(outcome._tag === "Evaluated" && outcome.verdicts[0]!.effect).toBe("deny")
    }).pipe(Effect.provide(engineLayer(settings(), seededLedgerLayer([freezeRow("agent", "tag=layer=bronze", T0)])))))

  it.effect("an unreadable ledger forces agents to deny and leaves humans alone", () =>
    Effect.gen(function* () {
      const agent = yield* gateFor("agent")
      expect(agent.map((v) => v.effect)).toEqual(["deny", "deny"])
      expect(agent[0]!.reason).toMatch(/decision ledger is unreadable — agent mutation forced to deny/)
      expect((yield* gateFor("human")).map((v) => v.effect)).toEqual(["allow", "allow"])
    }).pipe(Effect.provide(engineLayer(settings(), brokenLedgerLayer))))
})

describe("dynamic layer: actor and target", () => {
  it.effect("a freeze row's actor is not the frozen principal: the projection freezes the target", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(T0 + DAY)
      expect((yield* gateFor("agent")).map((v) => v.effect)).toEqual(["deny", "deny"])
      expect((yield* gateFor("human")).map((v) => v.effect)).toEqual(["allow", "allow"])
    }).pipe(
      Effect.provide(
        engineLayer(settings(), seededLedgerLayer([{ ...freezeRow("agent", "any", T0), principal: "human", principal_id: "alice", target_principal: "agent" }]))
      )
    ))

  it.effect("a refusal row (an agent's unfreeze) lifts nothing", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(T0 + DAY)
      expect((yield* gateFor("agent")).map((v) => v.effect)).toEqual(["deny", "deny"])
    }).pipe(
      Effect.provide(
        engineLayer(
          settings(),
          seededLedgerLayer([
            { ...freezeRow("agent", "any", T0), principal: "human", target_principal: "agent" },
            row({ kind: "refusal", principal: "agent", target_principal: "agent", model: "any", effect: "deny", timestamp: iso(T0 + 1000), plan_id: `unfreeze-refused:agent:${iso(T0 + 1000)}` })
          ])
        )
      )
    ))
})

describe("dynamic layer: NotConfigured", () => {
  it.effect("with no [policy] block the gate answers NotConfigured before reading any source", () => {
    let queries = 0
    const spy = Layer.succeed(
      Ledger,
      Ledger.of({
        append: () => Effect.die("no write expected"),
        appendAll: () => Effect.die("no write expected"),
        appendSealed: () => Effect.die("no write expected"),
        chainedAt: () => Effect.die("no chain read expected"),
        query: () => {
          queries++
          return Stream.empty
        },
        list: () => {
          queries++
          return Effect.succeed([])
        },
        verify: Effect.die("no chain walk expected"),
        evaluationGroups: () => Effect.die("no replay expected"),
        count: () => Effect.die("no count expected"),
        outcomes: () => Effect.die("no scorecard expected"),
        headHash: Effect.die("no head read expected")
      })
    )
    return Effect.gen(function* () {
      const engine = yield* PolicyEngine
      const outcome = yield* engine.gate("agent", "apply", [gold])
      expect(outcome._tag).toBe("NotConfigured")
      expect(queries).toBe(0)
    }).pipe(Effect.provide(engineLayer(settings({ policy: undefined, objectStoreUrl: "s3://bucket/prefix/" }), spy)))
  })
})

describe("dynamic layer: durable markers", () => {
  const markerDir = () => {
    const dir = fs.mkdtempSync(nodePath.join(os.tmpdir(), "pcli-markers-"))
    return { dir, url: pathToFileURL(dir + "/").href }
  }
  const writeMarker = (dir: string, direction: string, id: string, body: unknown) => {
    fs.mkdirSync(nodePath.join(dir, direction), { recursive: true })
    fs.writeFileSync(nodePath.join(dir, direction, `${id}.json`), typeof body === "string" ? body : JSON.stringify(body))
  }

  it.effect("a marker freeze denies even with an empty ledger; a later unfreeze marker lifts it", () => {
    const { dir, url } = markerDir()
    writeMarker(dir, "freeze", "a1", { freeze_id: "a1", principal: "agent", scope: "layer=gold", reason: "incident", created_at: iso(T0) })
    writeMarker(dir, "freeze", "a2", { freeze_id: "a2", principal: "agent", scope: "layer=bronze", reason: "incident", created_at: iso(T0) })
    writeMarker(dir, "unfreeze", "a3", { freeze_id: "a3", principal: "agent", scope: "layer=bronze", reason: "over", created_at: iso(T0 + 1) })
    return Effect.gen(function* () {
      const verdicts = yield* gateFor("agent")
      expect(verdicts.map((v) => v.effect)).toEqual(["deny", "allow"])
      expect(verdicts[0]!.reason).toMatch(/forced to deny \(a1\)/)
    }).pipe(Effect.provide(engineLayer(settings({ objectStoreUrl: url }))))
  })

  it.effect("an unreadable freeze marker widens to both principals and every model", () => {
    const { dir, url } = markerDir()
    writeMarker(dir, "freeze", "bad", '{"freeze_id": tru')
    return Effect.gen(function* () {
      expect((yield* gateFor("human")).map((v) => v.effect)).toEqual(["deny", "deny"])
      expect((yield* gateFor("agent")).map((v) => v.effect)).toEqual(["deny", "deny"])
    }).pipe(Effect.provide(engineLayer(settings({ objectStoreUrl: url }))))
  })

  it.effect("markers OR ledger: a ledger unfreeze does not lift a marker freeze", () => {
    const { dir, url } = markerDir()
    writeMarker(dir, "freeze", "m1", { freeze_id: "m1", principal: "agent", scope: "any", reason: "x", created_at: iso(T0) })
    return Effect.gen(function* () {
      yield* TestClock.setTime(T0 + DAY)
      expect((yield* gateFor("agent")).map((v) => v.effect)).toEqual(["deny", "deny"])
    }).pipe(Effect.provide(engineLayer(settings({ objectStoreUrl: url }), seededLedgerLayer([freezeRow("agent", "any", T0 + 5, "unfreeze")]))))
  })

  it.effect("an object tier whose markers cannot be read forces agents to deny", () => {
    const { dir, url } = markerDir()
    fs.writeFileSync(nodePath.join(dir, "freeze"), "a file where the freeze/ directory should be")
    return Effect.gen(function* () {
      const agent = yield* gateFor("agent")
      expect(agent.map((v) => v.effect)).toEqual(["deny", "deny"])
      expect(agent[0]!.reason).toMatch(/the freeze markers are unreadable — agent mutation forced to deny/)
      expect((yield* gateFor("human")).map((v) => v.effect)).toEqual(["allow", "allow"])
    }).pipe(Effect.provide(engineLayer(settings({ objectStoreUrl: url }))))
  })
})

describe("dynamic layer: autonomy budget", () => {
  const failure = (plan: string, at: number, ruleId = 0): ReadonlyArray<LedgerRow> => [
    row({ kind: "evaluation", plan_id: plan, model: "stg_events", rule_id: ruleId, timestamp: iso(at - 1000) }),
    row({ kind: "verification", plan_id: plan, effect: "deny", timestamp: iso(at), reason: "verify_after FAILED: row_count (failed)" })
  ]
  const seed: ReadonlyArray<LedgerRow> = [
    ...failure("p1", T0),
    ...failure("p2", T0 + 6 * 3_600_000),
    // passing verification and a failure charged to another rule never count
    row({ kind: "evaluation", plan_id: "p3", rule_id: 0, timestamp: iso(T0) }),
    row({ kind: "verification", plan_id: "p3", effect: "allow", timestamp: iso(T0 + 1) }),
    ...failure("p4", T0 + 2, 7)
  ]

  it.effect("exhausts at the limit, then recovers as failures age out of the window", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(T0 + 12 * 3_600_000)
      const exhausted = yield* gateFor("agent", [bronze])
      expect(exhausted[0]!.effect).toBe("require_review")
      expect(exhausted[0]!.reason).toMatch(/autonomy budget exhausted on rule 0 \(2\/2 verify-after failures in 1d\) — allow degraded to require_review/)
      yield* TestClock.setTime(T0 + DAY + 1)
      const recovered = yield* gateFor("agent", [bronze])
      expect(recovered[0]!.effect).toBe("allow")
      expect(recovered[0]!.reason).not.toMatch(/budget/)
    }).pipe(Effect.provide(engineLayer(settings(), seededLedgerLayer(seed)))))

  it.effect("one failure under a limit of two leaves the effect alone", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(T0 + 3_600_000)
      expect((yield* gateFor("agent", [bronze]))[0]!.effect).toBe("allow")
    }).pipe(Effect.provide(engineLayer(settings(), seededLedgerLayer(failure("p1", T0))))))
})
