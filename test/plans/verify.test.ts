import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { applyPlan } from "../../src/commands/applyPlan"
import { planCreate } from "../../src/commands/planCreate"
import { approvePlan } from "../../src/commands/reviewPlan"
import { loadPolicy } from "../policy/support/config"
import { agent, as, human, ledgerRows, left, makeProject, projectLayer, rowsWrittenBy, type TestProject, writeModel } from "./harness"

const POLICY = loadPolicy(`[policy]
version = 1

[[policy.rules]]
principal = "agent"
capability = "schema_change.additive"
effect = "allow"
scope = { layer = "bronze" }
verify_after = ["row_count", "not_null"]
autonomy_budget = { failures = 2, window = "7d" }
`)

const bronze = (sql: string) => ({ sql, extra: 'tags = { layer = "bronze" }\n[[tests]]\ntype = "not_null"\ncolumn = "id"' })

/** An agent adds one bronze model, plans it and applies it. */
const addAndApply = (p: TestProject, name: string, sql: string) =>
  Effect.gen(function* () {
    writeModel(p, name, bronze(sql))
    const planned = yield* as(agent)(planCreate({ models: [] }))
    return { planned, applied: yield* Effect.either(as(agent)(applyPlan({ planId: planned.plan_id }))) }
  })

describe("verify_after and the autonomy budget", () => {
  it.live("failed verifications count against the rule until the budget escalates allow to require_review", () => {
    const p = makeProject()
    return Effect.gen(function* () {
      const ok = yield* addAndApply(p, "e_ok", "SELECT 1 AS id")
      const okOut = ok.applied._tag === "Right" ? ok.applied.right : undefined
      expect(okOut?.verifications).toMatchObject([{ rule_id: 0, passed: true }])
      expect(okOut?.verifications[0]?.checks.map((c) => [c.check, c.status])).toEqual([["row_count", "passed"], ["not_null", "passed"]])

      for (const name of ["e_empty1", "e_empty2"]) {
        const { planned, applied } = yield* addAndApply(p, name, "SELECT 1 AS id WHERE false")
        expect(planned.kind).toBe("run")
        const out = applied._tag === "Right" ? applied.right : undefined
        expect(out?.run.status).toBe("success")
        expect(out?.verifications).toMatchObject([{ rule_id: 0, passed: false }])
        const rows = yield* ledgerRows({ planId: planned.plan_id })
        const verification = rows.filter((r) => r.kind === "verification")
        expect(verification).toMatchObject([{ model: "*", effect: "deny", rule_id: 0, principal: "agent" }])
        expect(verification[0]!.reason).toContain("verify_after FAILED: row_count on " + name)
      }

      // Two failures in the window: the rule's allow now needs review, at planning and at apply.
      writeModel(p, "e_third", bronze("SELECT 3 AS id"))
      const third = yield* as(agent)(planCreate({ models: [] }))
      expect(third.kind).toBe("escalation")
      expect(third.evaluations[0]!.reason).toContain("autonomy budget exhausted on rule 0 (2/2")
      const refused = yield* rowsWrittenBy(as(agent)(applyPlan({ planId: third.plan_id })))
      expect(left(refused.result)).toMatchObject({ code: "marker-missing" })
      expect(refused.rows).toMatchObject([{ effect: "require_review", rule_id: 0, model: "e_third" }])

      // A human sign-off satisfies require_review; nothing is verified under a non-allow verdict.
      yield* as(human)(approvePlan({ planId: third.plan_id }))
      const approved = yield* as(agent)(applyPlan({ planId: third.plan_id }))
      expect(approved.run.status).toBe("success")
      expect(approved.verifications).toEqual([])
    }).pipe(Effect.provide(projectLayer(p, POLICY)))
  })
})
