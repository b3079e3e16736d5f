import { Effect } from "effect"
import type { DataTest } from "../../schemas/model"
import type { CheckResult } from "../../schemas/plans"
import type { CompiledModel } from "../Project/compile"
import { physicalName } from "../Runner/strategies"
import { checkContract, describeTest, testQuery } from "../Runner/tests"
import { Warehouse } from "../Warehouse/Warehouse"

/**
 * `verify_after` check names, run against a model's published table after apply:
 * `row_count` (the table has rows), `contract` (the contract holds), `tests` (every
 * `[[tests]]` entry passes), or a test type (`not_null`, `unique`, `composite`,
 * `accepted_values`, `expression`, `row_count_range`: the model's tests of that type pass).
 * A check that has nothing to run for the model (no contract, no such test, unknown name) is
 * `absent`, and absent counts as a failure, as in the reference.
 */
export const CHECK_NAMES = ["row_count", "contract", "tests", "not_null", "unique", "composite", "accepted_values", "expression", "row_count_range"] as const

const result = (check: string, model: string, status: CheckResult["status"], detail: string): CheckResult => ({ check, model, status, detail })

const runTests = (check: string, model: CompiledModel, tests: ReadonlyArray<DataTest>, relation: string) =>
  Effect.gen(function* () {
    if (tests.length === 0) return result(check, model.name, "absent", `model ${model.name} has no ${check === "tests" ? "" : `${check} `}tests`)
    const wh = yield* Warehouse
    const failing: Array<string> = []
    for (const test of tests) {
      const r = yield* wh.execute(testQuery(test, relation))
      const n = Number(r.rows[0]?.[0] ?? 0)
      if (n > 0) failing.push(`${describeTest(test)} (${n} offending)`)
    }
    return failing.length === 0
      ? result(check, model.name, "passed", `${tests.length} test(s) passed`)
      : result(check, model.name, "failed", failing.join("; "))
  })

/** Runs one named check on one built model; warehouse errors fail the check, never the apply. */
export const runCheck = (check: string, model: CompiledModel): Effect.Effect<CheckResult, never, Warehouse> =>
  Effect.gen(function* () {
    const wh = yield* Warehouse
    const relation = physicalName(model.target, wh.kind)
    switch (check) {
      case "row_count": {
        const r = yield* wh.execute(`SELECT count(*) FROM ${relation}`)
        const n = Number(r.rows[0]?.[0] ?? 0)
        return n > 0 ? result(check, model.name, "passed", `${n} row(s)`) : result(check, model.name, "failed", "the table is empty")
      }
      case "contract": {
        const contract = model.definition.contract
        if (contract === undefined) return result(check, model.name, "absent", `model ${model.name} has no contract`)
        return yield* checkContract(model.name, contract, relation).pipe(
          Effect.as(result(check, model.name, "passed", "contract holds")),
          Effect.catchTag("ContractViolation", (e) => Effect.succeed(result(check, model.name, "failed", e.detail)))
        )
      }
      case "tests":
        return yield* runTests(check, model, model.definition.sidecar.tests, relation)
      default: {
        if (!(CHECK_NAMES as ReadonlyArray<string>).includes(check)) {
          return result(check, model.name, "absent", `unknown check '${check}' (known: ${CHECK_NAMES.join(", ")})`)
        }
        return yield* runTests(check, model, model.definition.sidecar.tests.filter((t) => t.type === check), relation)
      }
    }
  }).pipe(Effect.catchTag("StatementFailed", (e) => Effect.succeed(result(check, model.name, "failed", e.message))))

/** The reason a verification row carries: what passed, or what failed and what was absent. */
export const verificationReason = (results: ReadonlyArray<CheckResult>): string => {
  const label = (r: CheckResult) => `${r.check} on ${r.model}`
  const bad = results.filter((r) => r.status !== "passed")
  if (bad.length === 0) return `verify_after passed: [${results.map(label).join(", ")}]`
  return `verify_after FAILED: ${bad.map((r) => `${label(r)} (${r.status === "absent" ? "absent — did not run" : "failed"}: ${r.detail})`).join("; ")}`
}
