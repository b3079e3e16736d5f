import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Layer, Option, Stream, TestClock } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { pathToFileURL } from "node:url"
import { PolicyFreezeOutput, PolicyShowOutput } from "../../src/schemas/policy-output"
import { encodeJson } from "../../src/render/json"
import { Ledger } from "../../src/services/Ledger/Ledger"
import { ProjectContext } from "../../src/services/ProjectConfig/ProjectContext"
import { ModelAttributesSource, ModelNotFound } from "../../src/services/PolicyEngine/attributes"
import { failOnScenarioFailures, policyTest } from "../../src/commands/policyTest"
import { policyCheck } from "../../src/commands/policyCheck"
import { policyFreeze } from "../../src/commands/policyFreeze"
import type { ActingPrincipal } from "../../src/services/Principal/Principal"
import { policyShow } from "../../src/commands/policyShow"
import { policyUnfreeze } from "../../src/commands/policyUnfreeze"
import type { PolicySettings } from "../../src/services/PolicyEngine/PolicyEngine"
import { loadPolicy, model } from "./support/config"
import { engineLayer } from "./support/engine"
import { brokenLedgerLayer, seededLedgerLayer, row } from "./support/seededLedger"
import { actingAs } from "./support/principal"

const T0 = Date.parse("2026-03-01T00:00:00.000Z")
const actor: ActingPrincipal = { class: "human", id: "alice", source: "flag" }

const POLICY = `[policy]
version = 1
default_agent_effect = "require_review"

[[policy.rules]]
principal = "agent"
capability = "apply"
effect = "deny"
scope = { contracted = true }

[[policy.rules]]
principal = "agent"
capability = "schema_change.additive"
effect = "allow"
scope = { layer = "bronze", exclude_classifications = ["pii"], max_downstreams = 10 }
verify_after = ["row_count"]
autonomy_budget = { failures = 3, window = "7d" }
conditions = { token = "sup3r-s3cret" }

[[policy.tests]]
name = "uncountable blast radius stops for review"
principal = "agent"
capability = "schema_change.additive"
model = "stg_events"
tags = { layer = "bronze" }
expect = "require_review"

[[policy.tests]]
name = "small bronze addition flows"
principal = "agent"
capability = "schema_change.additive"
model = "stg_events"
layer = "bronze"
reachable_downstreams = 4
expect = "allow"

[[policy.tests]]
name = "wrong expectation"
principal = "agent"
capability = "apply"
model = "fct_orders"
contracted = true
expect = "allow"
`

const settings = (extra: Partial<PolicySettings> = {}): PolicySettings => ({
  configPresent: true,
  policy: loadPolicy(POLICY),
  ledger: { kind: "remote" },
  ...extra
})

const attributes = Layer.succeed(
  ModelAttributesSource,
  ModelAttributesSource.of({
    resolve: (name, modelsDir) =>
      name === "stg_events"
        ? Effect.succeed(model({ name, tags: { layer: "bronze", owner: "data" }, classifications: ["internal", "email"], downstreams: 2, reachableDownstreams: 12 }))
        : name === "fct_orders"
          ? Effect.succeed(model({ name, contracted: true, reachableDownstreams: undefined }))
          : Effect.fail(new ModelNotFound({ model: name, modelsDir }))
  })
)

/** The project policy check reads its models directory from. */
const project = Layer.succeed(ProjectContext, { config: Option.none(), root: ".", modelsDir: "models", state: { path: "state.sqlite", createParent: false } })

const allRows = Effect.flatMap(Ledger, (l) => Effect.map(Stream.runCollect(l.query({})), Chunk.toReadonlyArray))

describe("policy check", () => {
  it.effect("explains the verdict, matched rule, reason and attributes", () =>
    Effect.gen(function* () {
      const out = yield* policyCheck({ principal: "agent", capability: "schema_change.additive", model: "stg_events" })
      expect(out).toEqual({
        command: "policy_check",
        principal: "agent",
        capability: "schema_change.additive",
        model: "stg_events",
        effect: "require_review",
        matched_rule: 1,
        reason: "require_review by rule 1 (most-specific match); max_downstreams=10 exceeded (blast radius 12) — allow degraded to require_review",
        model_attributes: { tags: { layer: "bronze", owner: "data" }, classifications: ["email", "internal"], layer: "bronze", contracted: false, downstreams: 2, reachable_downstreams: 12 }
      })
      const contracted = yield* policyCheck({ principal: "agent", capability: "value_change", model: "fct_orders" })
      expect(contracted.effect).toBe("deny")
      expect(contracted.model_attributes).toEqual({ tags: {}, classifications: [], contracted: true, downstreams: 0 })
      expect(Object.keys(contracted)[0]).toBe("command")
    }).pipe(Effect.provide(Layer.mergeAll(engineLayer(settings()), attributes, project))))

  it.effect("without a [policy] block it shows the default posture", () =>
    Effect.gen(function* () {
      const agent = yield* policyCheck({ principal: "agent", capability: "apply", model: "stg_events" })
      expect([agent.effect, agent.matched_rule]).toEqual(["require_review", null])
      const human = yield* policyCheck({ principal: "human", capability: "apply", model: "stg_events" })
      expect(human.effect).toBe("allow")
    }).pipe(Effect.provide(Layer.mergeAll(engineLayer(settings({ configPresent: false, policy: undefined })), attributes, project))))

  it.effect("rejects bad input with typed errors", () =>
    Effect.gen(function* () {
      const run = (principal: string, capability: string, m: string) =>
        Effect.flip(policyCheck({ principal, capability, model: m }))
      expect((yield* run("robot", "apply", "stg_events")).code).toBe("invalid-principal")
      expect((yield* run("agent", "apply_all", "stg_events")).code).toBe("invalid-capability")
      const missing = yield* run("agent", "apply", "nope")
      expect([missing.code, missing.message]).toEqual(["model-not-found", "model 'nope' not found in models"])
    }).pipe(Effect.provide(Layer.mergeAll(engineLayer(settings()), attributes, project))))
})

describe("policy test", () => {
  it.effect("runs every scenario through the evaluator in declaration order", () =>
    Effect.gen(function* () {
      const out = yield* policyTest
      expect([out.command, out.total, out.passed, out.failed]).toEqual(["policy_test", 3, 2, 1])
      expect(out.results.map((r) => [r.name, r.passed, r.expected, r.actual])).toEqual([
        ["uncountable blast radius stops for review", true, "require_review", "require_review"],
        ["small bronze addition flows", true, "allow", "allow"],
        ["wrong expectation", false, "allow", "deny"]
      ])
      expect(out.results[2]!.matched_rule).toBe(0)
      const failure = yield* Effect.flip(failOnScenarioFailures(out))
      expect([failure.code, failure.message]).toEqual(["policy-test-failed", "1 of 3 policy scenario(s) failed"])
    }).pipe(Effect.provide(engineLayer(settings()))))

  const testError = (extra: Partial<PolicySettings>) =>
    Effect.flip(policyTest).pipe(Effect.provide(engineLayer(settings(extra))))

  it.effect("distinct errors: no config, no block, no scenarios, inconsistent layer", () =>
    Effect.gen(function* () {
      expect((yield* testError({ configPresent: false, policy: undefined })).code).toBe("policy-config-missing")
      expect((yield* testError({ policy: undefined })).code).toBe("policy-not-configured")
      expect((yield* testError({ policy: loadPolicy("[policy]\nversion = 1\n") })).code).toBe("policy-no-scenarios")
      const inconsistent = yield* testError({
        policy: loadPolicy(`[policy]\nversion = 1\n[[policy.tests]]\nname = "mixed"\nprincipal = "agent"\ncapability = "apply"\nexpect = "allow"\nlayer = "gold"\ntags = { layer = "bronze" }\n`)
      })
      expect([inconsistent.code, inconsistent.message]).toEqual([
        "policy-scenario-inconsistent",
        `policy test 'mixed' is inconsistent: layer = "gold" but tags.layer = "bronze"`
      ])
    }))
})

const tempDir = () => fs.mkdtempSync(nodePath.join(os.tmpdir(), "pcli-policy-"))
/** An object tier that exists but cannot be listed or written: `freeze` and `unfreeze` are plain files. */
const unreadableTier = () => {
  const dir = tempDir()
  fs.writeFileSync(nodePath.join(dir, "freeze"), "not a directory")
  fs.writeFileSync(nodePath.join(dir, "unfreeze"), "not a directory")
  return pathToFileURL(dir + "/").href
}

describe("policy show", () => {
  const seed = [
    row({ kind: "freeze", principal: "agent", model: "layer=gold", effect: "deny", plan_id: "freeze:agent:2026-02-01T00:00:00.000Z", timestamp: "2026-02-01T00:00:00.000Z", reason: "incident 7" }),
    row({ kind: "freeze", principal: "human", model: "any", effect: "deny", plan_id: "freeze:human:2026-02-01T00:00:00.000Z", timestamp: "2026-02-01T00:00:00.000Z", reason: "lifted later" }),
    row({ kind: "unfreeze", principal: "human", model: "any", effect: "allow", plan_id: "unfreeze:human:2026-02-02T00:00:00.000Z", timestamp: "2026-02-02T00:00:00.000Z", reason: "over" })
  ]

  it.effect("lists rules in file order, freezes in force, and sources; secrets in conditions never appear", () =>
    Effect.gen(function* () {
      const out = yield* policyShow
      const json = Effect.runSync(encodeJson(PolicyShowOutput, out))
      expect(json).toBe(`{
  "command": "policy_show",
  "configured": true,
  "policy_version": 1,
  "default_agent_effect": "require_review",
  "rules": [
    {
      "id": 0,
      "principal": "agent",
      "capability": "apply",
      "effect": "deny",
      "scope": {
        "any": false,
        "models": [],
        "tags": {},
        "classifications": [],
        "exclude_classifications": [],
        "contracted": true
      }
    },
    {
      "id": 1,
      "principal": "agent",
      "capability": "schema_change.additive",
      "effect": "allow",
      "scope": {
        "any": false,
        "models": [],
        "tags": {},
        "classifications": [],
        "exclude_classifications": [
          "pii"
        ],
        "layer": "bronze",
        "max_downstreams": 10
      },
      "verify_after": [
        "row_count"
      ],
      "autonomy_budget": {
        "failures": 3,
        "window": "7d"
      }
    }
  ],
  "freezes": [
    {
      "source": "ledger",
      "principal": "agent",
      "scope": "layer=gold",
      "reason": "incident 7",
      "since": "2026-02-01T00:00:00.000Z",
      "plan_id": "freeze:agent:2026-02-01T00:00:00.000Z",
      "frozen_by": "agent(tester)"
    }
  ],
  "freeze_sources": {
    "ledger": "local_mirror",
    "markers": "not_configured"
  },
  "ledger_head_hash": "${"0".repeat(64)}"
}
`)
      expect(json).not.toContain("sup3r-s3cret")
    }).pipe(Effect.provide(engineLayer(settings(), seededLedgerLayer(seed)))))

  it("is byte-for-byte stable across runs", async () => {
    const once = () =>
      Effect.runPromise(Effect.flatMap(policyShow, (o) => encodeJson(PolicyShowOutput, o)).pipe(Effect.provide(engineLayer(settings(), seededLedgerLayer(seed)))))
    const runs = await Promise.all([once(), once(), once()])
    expect(new Set(runs).size).toBe(1)
  })

  it.effect("without a [policy] block nothing is consulted, even with a freeze row", () =>
    Effect.gen(function* () {
      const out = yield* policyShow
      expect([out.configured, out.policy_version, out.default_agent_effect, out.rules, out.freezes]).toEqual([false, null, "require_review", [], []])
      expect(out.freeze_sources).toEqual({ ledger: "not_consulted", markers: "not_consulted" })
    }).pipe(Effect.provide(engineLayer(settings({ policy: undefined }), seededLedgerLayer(seed)))))

  it.effect("a local store file: read when present, absent when proven missing", () => {
    const dir = tempDir()
    const present = nodePath.join(dir, ".pcli-state.sqlite")
    fs.writeFileSync(present, "")
    return Effect.gen(function* () {
      const read = yield* policyShow.pipe(Effect.provide(engineLayer(settings({ ledger: { kind: "local", path: present } }), seededLedgerLayer(seed))))
      expect(read.freeze_sources.ledger).toBe("read")
      expect(read.freezes).toHaveLength(1)
      const absent = yield* policyShow.pipe(Effect.provide(engineLayer(settings({ ledger: { kind: "local", path: nodePath.join(dir, "missing.sqlite") } }), seededLedgerLayer(seed))))
      expect([absent.freeze_sources.ledger, absent.freezes]).toEqual(["absent", []])
    })
  })

  it.effect("a source that exists but cannot be read is an error, never an empty list", () => {
    const dir = tempDir()
    const dangling = nodePath.join(dir, "state.sqlite")
    fs.symlinkSync(nodePath.join(dir, "gone.sqlite"), dangling)
    const present = nodePath.join(dir, "real.sqlite")
    fs.writeFileSync(present, "")
    return Effect.gen(function* () {
      const link = yield* Effect.flip(policyShow.pipe(Effect.provide(engineLayer(settings({ ledger: { kind: "local", path: dangling } })))))
      expect(link.code).toBe("freeze-source-unreadable")
      expect(link.message).toMatch(/dangling symlink/)
      const broken = yield* Effect.flip(policyShow.pipe(Effect.provide(engineLayer(settings({ ledger: { kind: "local", path: present } }), brokenLedgerLayer))))
      expect(broken.code).toBe("freeze-source-unreadable")
      const tier = unreadableTier()
      const markers = yield* Effect.flip(policyShow.pipe(Effect.provide(engineLayer(settings({ objectStoreUrl: tier })))))
      expect(markers.code).toBe("freeze-source-unreadable")
      expect(markers.message).toMatch(new RegExp(`^cannot read the markers freeze source at ${tier}: list freeze/: `))
    })
  })
})

describe("policy freeze / unfreeze", () => {
  it.effect("freeze defaults to both principals (agent first) on scope any, one row each", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(T0)
      const out = yield* actingAs(actor)(policyFreeze({}))
      expect(out).toEqual({
        command: "policy_freeze",
        lifted: false,
        scope: "any",
        recorded_at: "2026-03-01T00:00:00.000Z",
        entries: [
          { principal: "agent", effect: "deny", decision_ref: "2026-03-01T00:00:00.000Z|freeze:agent:2026-03-01T00:00:00.000Z|any", plan_id: "freeze:agent:2026-03-01T00:00:00.000Z", reason: "agent frozen on scope 'any' by human(alice)" },
          { principal: "human", effect: "deny", decision_ref: "2026-03-01T00:00:00.000Z|freeze:human:2026-03-01T00:00:00.000Z|any", plan_id: "freeze:human:2026-03-01T00:00:00.000Z", reason: "human frozen on scope 'any' by human(alice)" }
        ]
      })
      const rows = yield* allRows
      // The actor (class, id, source) and the frozen principal are separate columns; both rows share one timestamp.
      expect(rows.map((r) => [r.kind, r.principal, r.principal_id, r.principal_id_source, r.principal_id_verified, r.target_principal, r.model, r.effect, r.capability, r.rule_id])).toEqual([
        ["freeze", "human", "alice", "flag", false, "agent", "any", "deny", "apply", null],
        ["freeze", "human", "alice", "flag", false, "human", "any", "deny", "apply", null]
      ])
      expect(new Set(rows.map((r) => r.timestamp)).size).toBe(1)
    }).pipe(Effect.provide(engineLayer(settings()))))

  it.effect("unfreeze must match the exact scope; a match lifts it and show stops listing it", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(T0)
      yield* actingAs(actor)(policyFreeze({ principal: "agent", scope: "model=stg_*", reason: "incident 9" }))
      const before = yield* allRows
      const miss = yield* Effect.flip(actingAs(actor)(policyUnfreeze({ principal: "agent", scope: "model=stg_e*" })))
      expect([miss.code, miss.message]).toEqual([
        "no-matching-freeze",
        "no freeze in force for agent on scope 'model=stg_e*' (unfreeze must name the exact scope of the freeze; see pcli policy show)"
      ])
      const wrongPrincipal = yield* Effect.flip(actingAs(actor)(policyUnfreeze({ principal: "human", scope: "model=stg_*" })))
      expect(wrongPrincipal.code).toBe("no-matching-freeze")
      expect(yield* allRows).toEqual(before)
      expect((yield* policyShow).freezes).toHaveLength(1)
      yield* TestClock.adjust("1 second")
      const lifted = yield* actingAs(actor)(policyUnfreeze({ scope: "model=stg_*" }))
      expect([lifted.command, lifted.lifted, lifted.entries.map((e) => [e.principal, e.effect])]).toEqual(["policy_unfreeze", true, [["agent", "allow"]]])
      expect(lifted.entries[0]!.plan_id).toBe("unfreeze:agent:2026-03-01T00:00:01.000Z")
      expect((yield* policyShow).freezes).toEqual([])
    }).pipe(Effect.provide(engineLayer(settings()))))

  it.effect("bad input is a one-line typed error and records nothing", () =>
    Effect.gen(function* () {
      const selector = yield* Effect.flip(actingAs(actor)(policyFreeze({ scope: "gold" })))
      expect([selector.code, selector.message]).toEqual([
        "invalid-selector",
        "invalid scope selector 'gold': expected one of any | layer=<name> | model=<glob> | classification=<value> | tag=<key>[=<value>]"
      ])
      for (const scope of ["layer=", "tag==v", "model=", "classification=", "owner=x"]) {
        expect((yield* Effect.flip(actingAs(actor)(policyFreeze({ scope })))).code).toBe("invalid-selector")
      }
      expect((yield* Effect.flip(actingAs(actor)(policyFreeze({ principal: "robot" })))).code).toBe("invalid-principal")
      expect(yield* allRows).toEqual([])
    }).pipe(Effect.provide(engineLayer(settings()))))

  it.effect("without a [policy] block the row is still recorded, with a warning that nothing enforces it", () =>
    Effect.gen(function* () {
      const out = yield* actingAs(actor)(policyFreeze({ principal: "agent", scope: "tag=pii" }))
      // The CLI prefixes each note with "warning: " once; the note itself carries no prefix.
      expect(out.notes).toEqual(["freeze of agent on scope 'tag=pii' recorded but NOT enforced: pcli.toml has no [policy] block"])
      expect(yield* allRows).toHaveLength(1)
      expect(Effect.runSync(encodeJson(PolicyFreezeOutput, out)).startsWith('{\n  "command": "policy_freeze"')).toBe(true)
    }).pipe(Effect.provide(engineLayer(settings({ policy: undefined, configPresent: false })))))

  it.effect("with freeze_marker_writes, freeze and unfreeze also write durable markers that show reads", () => {
    const dir = tempDir()
    const url = pathToFileURL(dir + "/").href
    const policy = { ...loadPolicy(POLICY), freeze_marker_writes: true }
    return Effect.gen(function* () {
      yield* TestClock.setTime(T0)
      yield* actingAs(actor)(policyFreeze({ principal: "agent", scope: "layer=gold", reason: "hold" }))
      const files = fs.readdirSync(nodePath.join(dir, "freeze"))
      expect(files).toHaveLength(1)
      const body = JSON.parse(fs.readFileSync(nodePath.join(dir, "freeze", files[0]!), "utf8"))
      expect(body).toMatchObject({ principal: "agent", scope: "layer=gold", reason: "hold", created_at: "2026-03-01T00:00:00.000Z" })
      const shown = yield* policyShow
      expect(shown.freeze_sources).toEqual({ ledger: "local_mirror", markers: "read" })
      expect(shown.freezes.map((f) => f.source)).toEqual(["ledger", "marker"])
      yield* TestClock.adjust("1 second")
      yield* actingAs(actor)(policyUnfreeze({ principal: "agent", scope: "layer=gold" }))
      expect(fs.readdirSync(nodePath.join(dir, "unfreeze"))).toHaveLength(1)
      expect((yield* policyShow).freezes).toEqual([])
    }).pipe(Effect.provide(engineLayer(settings({ policy, objectStoreUrl: url }))))
  })
})
