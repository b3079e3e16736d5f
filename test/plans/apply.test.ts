import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Schema } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { applyPlan } from "../../src/commands/applyPlan"
import { planCreate } from "../../src/commands/planCreate"
import { approvePlan } from "../../src/commands/reviewPlan"
import { ApplyOutput, PlanOutput } from "../../src/schemas/plans"
import { PlanStore } from "../../src/services/Plans/PlanStore"
import { planIdOf } from "../../src/services/Plans/ids"
import { workingFingerprints } from "../../src/services/Plans/derive"
import { loadPolicy } from "../policy/support/config"
import {
  agent,
  as,
  freeze,
  human,
  left,
  makeProject,
  projectLayer,
  query,
  removeModel,
  rowsWrittenBy,
  tableExists,
  type TestProject,
  unfreeze,
  writeModel
} from "./harness"

const POLICY = loadPolicy(`[policy]
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
scope = { layer = "bronze" }
`)

const GOLD_CONTRACT = `[[columns]]\nname = "id"\ntype = "INTEGER"\nnullable = false\n\n[[columns]]\nname = "email"\ntype = "VARCHAR"\nnullable = true\n`
const gold = {
  sql: "SELECT 1 AS id, 'a@example.com' AS email",
  extra: 'tags = { layer = "gold" }\nclassification = { email = "pii" }',
  contract: GOLD_CONTRACT
}

const plan = (p: TestProject, base?: string, models: ReadonlyArray<string> = []) => planCreate({ models, base })
const apply = (p: TestProject, planId: string) => applyPlan({ planId })
const approve = (p: TestProject, planId: string) => as(human)(approvePlan({ planId }))

describe("pcli apply: the governance loop end to end", () => {
  it.live("agent drops a pii column: denied naming the rule, nothing built; a human applies it; an agent's bronze model flows", () => {
    const p = makeProject({ gold_customers: gold })
    return Effect.gen(function* () {
      const first = yield* as(human)(plan(p))
      expect(first.kind).toBe("run")
      Schema.decodeUnknownSync(PlanOutput)(first)
      const built = yield* as(human)(apply(p, first.plan_id))
      Schema.decodeUnknownSync(ApplyOutput)(built)
      expect(built.run.status).toBe("success")

      // The agent drops the pii column from the SQL and the contract.
      writeModel(p, "gold_customers", { ...gold, sql: "SELECT 1 AS id", contract: GOLD_CONTRACT.split("\n\n")[0]! })
      const drop = yield* as(agent)(plan(p, "HEAD"))
      expect(drop.kind).toBe("run") // a deny while planning is recorded, never changes the kind
      expect(drop.changes[0]).toMatchObject({ model: "gold_customers", change_class: "schema_change.breaking" })
      expect(drop.evaluations).toMatchObject([{ model: "gold_customers", effect: "deny", rule_id: 0 }])

      // A valid marker does not satisfy a deny.
      yield* approve(p, drop.plan_id)
      const denied = yield* rowsWrittenBy(as(agent)(apply(p, drop.plan_id)))
      const error = left(denied.result)
      expect(error).toMatchObject({ _tag: "PolicyDenied", code: "policy-denied", rule: 0, model: "gold_customers" })
      expect(error.message).toContain("rule 0")
      expect(denied.rows).toHaveLength(1)
      expect(denied.rows[0]).toMatchObject({ principal: "agent", principal_id: "bot-7", effect: "deny", rule_id: 0, model: "gold_customers" })
      expect(denied.rows[0]!.reason).toContain("[policy-denied]")
      expect(yield* query("SELECT email FROM main.gold_customers")).toEqual([["a@example.com"]])

      // A human is not gated by rules naming agents: the same plan materializes.
      const byHuman = yield* rowsWrittenBy(as(human)(apply(p, drop.plan_id)))
      expect(Either.isRight(byHuman.result)).toBe(true)
      expect(byHuman.rows).toMatchObject([{ principal: "human", effect: "allow", model: "gold_customers", rule_id: null }])
      expect(yield* query("SELECT column_name FROM information_schema.columns WHERE table_name = 'gold_customers' ORDER BY ALL")).toEqual([["id"]])

      // An agent's new bronze model under the additive allow rule needs no review.
      writeModel(p, "bronze_events", { sql: "SELECT 42 AS id", extra: 'tags = { layer = "bronze" }' })
      const bronze = yield* as(agent)(plan(p))
      expect(bronze).toMatchObject({ kind: "run", models: ["bronze_events"], changes: [{ change_class: "schema_change.additive" }] })
      const flowed = yield* rowsWrittenBy(as(agent)(apply(p, bronze.plan_id)))
      expect(Either.isRight(flowed.result)).toBe(true)
      expect(flowed.rows).toMatchObject([{ principal: "agent", effect: "allow", rule_id: 1, model: "bronze_events" }])
      expect(yield* query("SELECT id FROM main.bronze_events")).toEqual([[42]])
    }).pipe(Effect.provide(projectLayer(p, POLICY)))
  })

  it.live("plan ids are deterministic; an edited plan or an unknown id is refused with exactly one row", () => {
    const p = makeProject({ a: { sql: "SELECT 1 AS id" } })
    return Effect.gen(function* () {
      writeModel(p, "a", { sql: "SELECT 2 AS id" })
      const one = yield* as(human)(plan(p, "HEAD"))
      const two = yield* as(agent)(plan(p, "HEAD"))
      // The kind is part of the hash: the agent's plan escalates (default posture), so its id differs.
      expect([one.kind, two.kind]).toEqual(["run", "escalation"])
      expect(two.plan_id).not.toBe(one.plan_id)
      const stored = JSON.parse(fs.readFileSync(one.path, "utf8"))
      expect(planIdOf(stored.kind, stored.payload)).toBe(stored.plan_id)
      expect(one.plan_id).toMatch(/^[0-9a-f]{64}$/)
      // Same change, same planner class → same id; the second write keeps the first file.
      const again = yield* as(human)(plan(p, "HEAD"))
      expect(again).toMatchObject({ plan_id: one.plan_id, written: false })

      stored.payload.models = ["a", "b"]
      fs.writeFileSync(one.path, JSON.stringify(stored, null, 2))
      const edited = yield* rowsWrittenBy(as(human)(apply(p, one.plan_id)))
      expect(left(edited.result)).toMatchObject({ code: "plan-integrity" })
      expect(edited.rows).toHaveLength(1)
      expect(edited.rows[0]).toMatchObject({ plan_id: one.plan_id, model: null, effect: null })
      expect(edited.rows[0]!.reason).toContain("[plan-integrity]")

      const unknown = yield* rowsWrittenBy(as(human)(apply(p, "f".repeat(64))))
      expect(left(unknown.result)).toMatchObject({ code: "plan-not-found" })
      expect(unknown.rows).toHaveLength(1)
      expect(unknown.rows[0]!.reason).toContain("[plan-not-found]")

      const badRef = yield* rowsWrittenBy(as(human)(plan(p, "no-such-branch")))
      expect(left(badRef.result)).toMatchObject({ code: "base-ref-not-found" })
      expect(badRef.rows).toHaveLength(1)
      expect(badRef.rows[0]!.reason).toContain("[base-ref-not-found]")
    }).pipe(Effect.provide(projectLayer(p, POLICY)))
  })

  it.live("marker refusals: missing, truncated, copied, symlink, directory — each its own code, one row per evaluated model", () => {
    const p = makeProject({ up: { sql: "SELECT 1 AS id" }, down: { sql: "SELECT id FROM main.up" } })
    return Effect.gen(function* () {
      // An agent's value change matches no rule: the default posture escalates the plan.
      writeModel(p, "up", { sql: "SELECT 2 AS id" })
      const esc = yield* as(agent)(plan(p, "HEAD"))
      expect(esc).toMatchObject({ kind: "escalation", models: ["up", "down"] })
      const other = yield* as(human)(plan(p, "HEAD"))
      expect(other.plan_id).not.toBe(esc.plan_id)
      const store = yield* PlanStore
      const markerPath = store.markerPath(esc.plan_id)

      const attempt = (code: string) =>
        Effect.gen(function* () {
          const out = yield* rowsWrittenBy(as(human)(apply(p, esc.plan_id)))
          const error = left(out.result) as { code: string; message: string }
          expect(error.code).toBe(code)
          expect(out.rows.map((r) => r.model)).toEqual(["up", "down"])
          for (const row of out.rows) expect(row.reason).toContain(`[${code}]`)
          return error.message
        })

      const missing = yield* attempt("marker-missing")
      expect(missing).toContain("has not been reviewed")

      yield* approve(p, esc.plan_id)
      const good = fs.readFileSync(markerPath, "utf8")
      fs.writeFileSync(markerPath, good.slice(0, 20))
      const truncated = yield* attempt("marker-unparseable")

      yield* approve(p, other.plan_id)
      fs.copyFileSync(store.markerPath(other.plan_id), markerPath)
      const copied = yield* attempt("marker-plan-mismatch")
      expect(copied).toContain(other.plan_id)

      fs.rmSync(markerPath)
      fs.symlinkSync(store.markerPath(other.plan_id), markerPath)
      const linked = yield* attempt("marker-not-a-file")
      expect(linked).toContain("symbolic link")

      fs.rmSync(markerPath)
      fs.mkdirSync(markerPath)
      const dir = yield* attempt("marker-not-a-file")
      expect(dir).toContain("directory")

      const messages = [missing, truncated, copied, linked]
      expect(new Set(messages).size).toBe(4)
      for (const m of [truncated, copied, linked, dir]) expect(m).not.toContain("has not been reviewed")
      expect(yield* tableExists("main", "down")).toBe(false)

      fs.rmdirSync(markerPath)
      yield* approve(p, esc.plan_id)
      const ok = yield* as(human)(apply(p, esc.plan_id))
      expect(ok.reviewed_by).toMatchObject({ email: "reviewer@example.com", source: "local" })
      expect(ok.run.models.map((m) => m.model_name)).toEqual(["up", "down"])
    }).pipe(Effect.provide(projectLayer(p, POLICY)))
  })

  it.live("a restore plan is gated even for a human, and refused as not executable after approval", () => {
    const p = makeProject({ a: { sql: "SELECT 1 AS id" } })
    return Effect.gen(function* () {
      const store = yield* PlanStore
      const written = yield* store.write({ kind: "restore", payload: { models: ["a"], restorations: [{ model_name: "a", hash: "abc" }], fingerprints: yield* workingFingerprints(p.modelsDir, ["a"]) }, principal: { class: "human", id: "alice", source: "flag" } })
      const id = written.plan.plan_id
      const refused = yield* rowsWrittenBy(as(human)(apply(p, id)))
      const error = left(refused.result)
      expect(error).toMatchObject({ code: "marker-missing" })
      expect(error.message).toContain("restore plans always need a review marker")
      expect(refused.rows).toMatchObject([{ principal: "human", principal_id: "alice", capability: "restore", model: "a" }])

      yield* approve(p, id)
      const after = yield* rowsWrittenBy(as(human)(apply(p, id)))
      expect(left(after.result)).toMatchObject({ code: "plan-kind-not-executable" })
      expect(after.rows).toHaveLength(1)
      expect(after.rows[0]!.reason).toContain("[plan-kind-not-executable]")
    }).pipe(Effect.provide(projectLayer(p, POLICY)))
  })

  it.live("freeze → apply refused → unfreeze → apply passes", () => {
    const p = makeProject()
    return Effect.gen(function* () {
      writeModel(p, "bronze_orders", { sql: "SELECT 7 AS id", extra: 'tags = { layer = "bronze" }' })
      const planned = yield* as(agent)(plan(p))
      expect(planned.evaluations).toMatchObject([{ effect: "allow", rule_id: 1 }])
      yield* freeze({ principal: "agent", scope: "layer=bronze" })
      const frozen = yield* rowsWrittenBy(as(agent)(apply(p, planned.plan_id)))
      const error = left(frozen.result)
      expect(error).toMatchObject({ code: "policy-denied" })
      expect(error.message).toContain("policy freeze active")
      expect(frozen.rows).toHaveLength(1)
      expect(frozen.rows[0]).toMatchObject({ effect: "deny", rule_id: 1 })
      expect(yield* tableExists("main", "bronze_orders")).toBe(false)

      yield* unfreeze({ principal: "agent", scope: "layer=bronze" })
      const passed = yield* as(agent)(apply(p, planned.plan_id))
      expect(passed.run.status).toBe("success")
      expect(yield* query("SELECT id FROM main.bronze_orders")).toEqual([[7]])
    }).pipe(Effect.provide(projectLayer(p, POLICY)))
  })

  it.live("a stale plan is refused with one row; a plan against the applied state only lists what changed since", () => {
    const p = makeProject({ a: { sql: "SELECT 1 AS id" }, b: { sql: "SELECT 1 AS id" } })
    return Effect.gen(function* () {
      const first = yield* as(human)(plan(p))
      expect(first.changes.map((c) => c.change_class)).toEqual(["schema_change.additive", "schema_change.additive"])
      yield* as(human)(apply(p, first.plan_id))
      const nothing = yield* Effect.either(as(human)(plan(p)))
      expect(left(nothing)).toMatchObject({ code: "nothing-to-plan" })

      writeModel(p, "a", { sql: "SELECT 1 AS id WHERE true" })
      const next = yield* as(human)(plan(p))
      expect(next.changes).toMatchObject([{ model: "a", change_class: "value_change" }])
      writeModel(p, "a", { sql: "SELECT 3 AS id" })
      const stale = yield* rowsWrittenBy(as(human)(apply(p, next.plan_id)))
      expect(left(stale.result)).toMatchObject({ code: "plan-stale", models: ["a"] })
      expect(stale.rows).toHaveLength(1)
      expect(stale.rows[0]!.reason).toContain("[plan-stale]")
      expect(path.basename(next.path)).toBe(`${next.plan_id}.json`)
    }).pipe(Effect.provide(projectLayer(p, POLICY)))
  })

  it.live("a removed model keeps its base attributes for policy; --model narrows the diff; an unknown --model is refused", () => {
    const p = makeProject({ gold_customers: gold, other: { sql: "SELECT 1 AS id" } })
    return Effect.gen(function* () {
      removeModel(p, "gold_customers")
      writeModel(p, "other", { sql: "SELECT 2 AS id" })
      const narrowed = yield* as(human)(plan(p, "HEAD", ["other"]))
      expect(narrowed.changes.map((c) => c.model)).toEqual(["other"])
      const removal = yield* as(agent)(plan(p, "HEAD", ["gold_customers"]))
      expect(removal.changes).toMatchObject([
        { model: "gold_customers", change_class: "schema_change.breaking", findings: [{ kind: "model_removed" }], after: null, base_attributes: { contracted: true, classifications: ["pii"] } }
      ])
      expect(removal.models).toEqual([])
      const denied = yield* rowsWrittenBy(as(agent)(apply(p, removal.plan_id)))
      expect(left(denied.result)).toMatchObject({ code: "policy-denied", rule: 0 })
      expect(denied.rows).toMatchObject([{ model: "gold_customers", effect: "deny" }])
      const unknown = yield* Effect.either(as(human)(plan(p, "HEAD", ["nope"])))
      expect(left(unknown)).toMatchObject({ code: "model-not-found" })
    }).pipe(Effect.provide(projectLayer(p, POLICY)))
  })

  it.live("without a [policy] block nothing is evaluated or recorded, but gated kinds still need a marker", () => {
    const p = makeProject({ a: { sql: "SELECT 1 AS id" } })
    return Effect.gen(function* () {
      writeModel(p, "a", { sql: "SELECT 2 AS id" })
      const planned = yield* rowsWrittenBy(as(agent)(plan(p, "HEAD")))
      const out = planned.result._tag === "Right" ? planned.result.right : undefined
      expect(out).toMatchObject({ kind: "run", policy: "not_configured", evaluations: [] })
      expect(planned.rows).toEqual([])
      const applied = yield* rowsWrittenBy(as(agent)(apply(p, out!.plan_id)))
      expect(applied.result._tag).toBe("Right")
      expect(applied.rows).toEqual([])
      const store = yield* PlanStore
      const gc = yield* store.write({ kind: "backfill", payload: { models: ["a"], seed_models: ["a"], no_downstream: true, execution_layers: [["a"]], fingerprints: yield* workingFingerprints(p.modelsDir, ["a"]) }, principal: { class: "human", id: "alice", source: "flag" } })
      const refused = yield* rowsWrittenBy(as(human)(apply(p, gc.plan.plan_id)))
      expect(left(refused.result)).toMatchObject({ code: "marker-missing" })
      expect(refused.rows).toMatchObject([{ principal: "agent", model: null, effect: null }])
    }).pipe(Effect.provide(projectLayer(p, undefined)))
  })

  it.live("--base outside a git work tree is git-failed", () => {
    const p = makeProject({ a: { sql: "SELECT 1 AS id" } })
    fs.rmSync(path.join(p.root, ".git"), { recursive: true, force: true })
    return Effect.gen(function* () {
      const out = yield* Effect.either(as(human)(plan(p, "HEAD")))
      expect(left(out)).toMatchObject({ code: "git-failed" })
    }).pipe(Effect.provide(projectLayer(p, POLICY)))
  })

  it.live("applied state: one file per apply, superseded files pruned, a removal drops the model from the next diff's base", () => {
    const p = makeProject({ a: { sql: "SELECT 1 AS id" }, b: { sql: "SELECT 1 AS id" } })
    const files = () => fs.readdirSync(path.join(p.root, ".pcli", "applied")).sort()
    return Effect.gen(function* () {
      yield* as(human)(apply(p, (yield* as(human)(plan(p))).plan_id))
      const [first] = files()
      writeModel(p, "a", { sql: "SELECT 2 AS id" })
      yield* as(human)(apply(p, (yield* as(human)(plan(p))).plan_id))
      expect(files()).toHaveLength(2) // the first still holds b's latest record
      writeModel(p, "b", { sql: "SELECT 2 AS id" })
      yield* as(human)(apply(p, (yield* as(human)(plan(p))).plan_id))
      expect(files()).toHaveLength(2)
      expect(files()).not.toContain(first)
      removeModel(p, "b")
      const removal = yield* as(human)(plan(p))
      expect(removal.changes).toMatchObject([{ model: "b", findings: [{ kind: "model_removed" }] }])
      yield* as(human)(apply(p, removal.plan_id))
      expect(left(yield* Effect.either(as(human)(plan(p))))).toMatchObject({ code: "nothing-to-plan" })
    }).pipe(Effect.provide(projectLayer(p, POLICY)))
  })
})
