import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { planCreate } from "../../src/commands/planCreate"
import { approvePlan, reviewPlan, reviewQueue, reviewStatus } from "../../src/commands/reviewPlan"
import { type Plan, ReviewMarker, type RunPayload } from "../../src/schemas/plans"
import { ReviewOutput } from "../../src/schemas/reviewOutput"
import { ReviewQueueOutput } from "../../src/schemas/reviewQueueOutput"
import { ReviewStatusOutput } from "../../src/schemas/reviewStatusOutput"
import { PlanStore } from "../../src/services/Plans/PlanStore"
import { loadPolicy } from "../policy/support/config"
import { bundleChildScript } from "../support/childScript"
import { agent, as, human, ledgerRows, left, makeProject, projectLayer, rowsWrittenBy, writeModel } from "./harness"

const POLICY = loadPolicy(`[policy]\nversion = 1\n`)
const author = { class: "agent" as const, id: "bot-7", source: "env" as const }

const runPayload = (model: string, changeClass: "value_change" | "schema_change.breaking"): RunPayload => ({
  base: { kind: "applied" },
  changes: [{ model, change_class: changeClass, findings: [{ kind: "sql_body_changed" }], before: "b", after: "a" }],
  models: [model],
  fingerprints: { [model]: "a" }
})

describe("pcli review", () => {
  it.live("dry run, approve, status: findings, the marker body, the approval row; an invalid marker is an error", () => {
    const p = makeProject({ t: { sql: "SELECT 1 AS id, 'x' AS name" } })
    return Effect.gen(function* () {
      writeModel(p, "t", { sql: "SELECT 1 AS id" })
      const planned = yield* as(agent)(planCreate({ models: [], base: "HEAD" }))
      expect(planned.kind).toBe("escalation")

      const dry = yield* reviewPlan({ planId: planned.plan_id })
      Schema.decodeUnknownSync(ReviewOutput)(dry)
      expect(dry).toMatchObject({ approved: false, marker_written: false, base_ref: "HEAD", stale: false })
      expect(dry.breaking_changes).toEqual([{ model: "t", finding: { kind: "column_removed", column: "name" }, read_by: [] }])
      const status0 = yield* reviewStatus(planned.plan_id)
      expect(status0).toMatchObject({ command: "review_status", reviewed: false, breaking_change_count: 1, product_binding: null })

      // Agents never sign off; the refusal is recorded.
      const byAgent = yield* rowsWrittenBy(as(agent)(approvePlan({ planId: planned.plan_id })))
      expect(left(byAgent.result)).toMatchObject({ code: "approval-needs-human" })
      expect(byAgent.rows).toHaveLength(1)

      const approved = yield* rowsWrittenBy(as(human)(approvePlan({ planId: planned.plan_id })))
      expect(approved.rows).toMatchObject([{ kind: "approval", principal: "human", principal_id: "alice", plan_id: planned.plan_id, effect: "allow" }])
      expect(approved.rows[0]!.reason).toContain("reviewer@example.com")
      const store = yield* PlanStore
      const marker = Schema.decodeUnknownSync(Schema.parseJson(ReviewMarker))(fs.readFileSync(store.markerPath(planned.plan_id), "utf8"))
      expect(marker).toMatchObject({ plan_id: planned.plan_id, base_ref: "HEAD", breaking_change_count: 1, approver: { email: "reviewer@example.com", name: "Rita Reviewer", source: "local" } })
      const status1 = yield* reviewStatus(planned.plan_id)
      Schema.decodeUnknownSync(ReviewStatusOutput)(status1)
      expect(status1).toMatchObject({ reviewed: true, reviewed_at: marker.reviewed_at, approver: marker.approver })

      fs.writeFileSync(store.markerPath(planned.plan_id), '{"plan_id": tru')
      const invalid = yield* Effect.either(reviewStatus(planned.plan_id))
      expect(left(invalid)).toMatchObject({ code: "marker-unparseable" })

      // Editing the model makes the plan stale; review says so before apply refuses it.
      writeModel(p, "t", { sql: "SELECT 2 AS id" })
      expect((yield* reviewPlan({ planId: planned.plan_id })).stale).toBe(true)
      // --base recomputes the plan's models against another ref.
      writeModel(p, "t", { sql: "SELECT 1 AS id, 'x' AS name, 2 AS extra" })
      const rebased = yield* reviewPlan({ planId: planned.plan_id, base: "HEAD" })
      expect(rebased).toMatchObject({ base_ref: "HEAD", breaking_changes: [], changes: [{ model: "t", change_class: "schema_change.additive" }] })
      const badRef = yield* Effect.either(reviewPlan({ planId: planned.plan_id, base: "v9.9" }))
      expect(left(badRef)).toMatchObject({ code: "base-ref-not-found" })
    }).pipe(Effect.provide(projectLayer(p, POLICY)))
  })

  it.live("the queue ranks pending gated plans by (blast + 1) × class weight × (1 + age in hours)", () => {
    const p = makeProject({
      a: { sql: "SELECT 1 AS id" },
      b: { sql: "SELECT id FROM main.a" },
      c: { sql: "SELECT id FROM main.b" },
      d: { sql: "SELECT id FROM main.c" }
    })
    return Effect.gen(function* () {
      const store = yield* PlanStore
      const write = (kind: Plan["kind"], payload: Plan["payload"], createdAt: string) =>
        Effect.gen(function* () {
          const { plan, path: file } = yield* store.write({ kind, payload, principal: author } as Parameters<typeof store.write>[0])
          // created_at sits outside the hash: ageing a plan keeps it intact.
          const stored = JSON.parse(fs.readFileSync(file, "utf8"))
          fs.writeFileSync(file, JSON.stringify({ ...stored, created_at: createdAt }, null, 2))
          return plan.plan_id
        })
      const now = new Date().toISOString()
      const tenHoursAgo = new Date(Date.now() - 10 * 3600_000).toISOString()
      const escalationD = yield* write("escalation", runPayload("d", "value_change"), now) // 1 × 2 × 1
      const gcA = yield* write("gc", { models: ["a"], fingerprints: { a: null } }, now) // (3 + 1) × 3 × 1 = 12
      const backfillC = yield* write("backfill", { models: ["c"], fingerprints: { c: null } }, tenHoursAgo) // (1 + 1) × 2 × 11 = 44
      const restoreD = yield* write("restore", { models: ["d"], fingerprints: { d: null } }, now) // 1 × 2 × 1, invalid marker
      const approvedB = yield* write("escalation", runPayload("b", "schema_change.breaking"), now)
      yield* write("run", runPayload("c", "schema_change.breaking"), now)
      yield* as(human)(approvePlan({ planId: approvedB }))
      fs.writeFileSync(store.markerPath(restoreD), "{")

      const queue = yield* reviewQueue
      Schema.decodeUnknownSync(ReviewQueueOutput)(queue)
      const tied = [escalationD, restoreD].sort()
      expect(queue.pending.map((i) => i.plan_id)).toEqual([backfillC, gcA, ...tied])
      expect(queue.pending.map((i) => [i.kind, i.blast_radius, i.class_weight])).toEqual([
        ["backfill", 1, 2],
        ["gc", 3, 3],
        ...tied.map((id) => (id === escalationD ? ["escalation", 0, 2] : ["restore", 0, 2]))
      ])
      expect(queue.pending[0]!.score).toBeCloseTo(44, 1)
      expect(queue.pending[1]!.score).toBeCloseTo(12, 1)
      expect(queue.pending.find((i) => i.plan_id === restoreD)!.marker).toBe("invalid")
      expect(queue.total).toBe(4)
    }).pipe(Effect.provide(projectLayer(p, POLICY)))
  })

  it.live("the queue compiles the project only for a pending plan's blast radius: a project that does not compile is noted then", () => {
    const p = makeProject({ a: { sql: "SELECT 1 AS id" }, b: { sql: "SELECT id FROM a" } })
    return Effect.gen(function* () {
      writeModel(p, "a", { sql: "SELECT id FROM b" }) // a and b now read each other: the project does not compile
      const empty = yield* reviewQueue
      expect(empty).toEqual({ command: "review_queue", ranking: "(blast_radius + 1) × class_weight × (1 + staleness_hours)", total: 0, pending: [] })
      const store = yield* PlanStore
      yield* store.write({ kind: "gc", payload: { models: ["a"], fingerprints: { a: null } }, principal: author } as Parameters<typeof store.write>[0])
      const queue = yield* reviewQueue
      expect(queue.pending.map((i) => [i.kind, i.blast_radius, i.score])).toEqual([["gc", undefined, 3]])
      expect(queue.notes).toEqual([expect.stringMatching(/ does not compile \(.+\): blast radius unknown$/)])
    }).pipe(Effect.provide(projectLayer(p, POLICY)))
  })

  it("two processes approving one plan at once leave one well-formed marker", async () => {
    const p = makeProject({ t: { sql: "SELECT 1 AS id" } })
    const child = await bundleChildScript(path.join(__dirname, "fixtures", "approveChild.ts"), "approve")
    const run = () =>
      new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
        const proc = spawn(process.execPath, [child.file, p.root, p.modelsDir, p.statePath, planId, "5"], { stdio: ["ignore", "pipe", "pipe"] })
        let out = ""
        let err = ""
        proc.stdout.on("data", (d) => (out += String(d)))
        proc.stderr.on("data", (d) => (err += String(d)))
        proc.on("exit", (code) => resolve({ code, out, err }))
      })
    let planId = ""
    try {
      await Effect.runPromise(
        Effect.gen(function* () {
          writeModel(p, "t", { sql: "SELECT 2 AS id" })
          planId = (yield* as(agent)(planCreate({ models: [], base: "HEAD" }))).plan_id
        }).pipe(Effect.provide(projectLayer(p, POLICY)))
      )
      const results = await Promise.all([run(), run()])
      for (const r of results) expect(r.err).toBe("")
      for (const r of results) expect(r.code).toBe(0)
      const dir = path.join(p.root, ".pcli", "plans")
      const marker = Schema.decodeUnknownSync(Schema.parseJson(ReviewMarker))(fs.readFileSync(path.join(dir, `${planId}.reviewed.json`), "utf8"))
      expect(marker.plan_id).toBe(planId)
      expect(fs.readdirSync(dir).filter((f) => f.endsWith(".tmp"))).toEqual([])
      const approvals = await Effect.runPromise(
        ledgerRows({ planId }).pipe(Effect.provide(projectLayer(p, POLICY)))
      )
      expect(approvals.filter((r) => r.kind === "approval")).toHaveLength(10)
    } finally {
      child.remove()
    }
  })
})
