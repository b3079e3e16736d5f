// `pcli test`: a model's data tests against its built relation, without building. Each test runs on
// its own, so one that cannot run (a missing column, a bad expression) is reported and the rest still run.
import { Effect } from "effect"
import type { DataTest } from "../../schemas/model"
import type { TestedModel, TestResult } from "../../schemas/inspect"
import type { CompiledModel } from "../Project/compile"
import { Warehouse } from "../Warehouse/Warehouse"
import { physicalName } from "./strategies"
import { describeTest, missingTestColumn, testQuery } from "./tests"

const firstLine = (text: string) => text.split("\n")[0] ?? text

const runOne = (model: string, test: DataTest, relation: string, columns: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const wh = yield* Warehouse
    const base = { test: describeTest(test), severity: test.severity }
    const missing = missingTestColumn(model, [test], columns)
    if (missing !== undefined) return { ...base, status: "error", detail: missing.message } satisfies TestResult
    const answer = yield* Effect.either(wh.execute(testQuery(test, relation)))
    if (answer._tag === "Left") return { ...base, status: "error", detail: `model ${model}: test ${base.test} could not run: ${firstLine(answer.left.message)}` } satisfies TestResult
    const failing = Number(answer.right.rows[0]?.[0] ?? 0)
    if (failing === 0) return { ...base, status: "pass" } satisfies TestResult
    return { ...base, status: test.severity === "error" ? "fail" : "warn", failing } satisfies TestResult
  })

const worst = (tests: ReadonlyArray<TestResult>): TestedModel["status"] =>
  tests.some((t) => t.status === "error") ? "error" : tests.some((t) => t.status === "fail") ? "fail" : tests.some((t) => t.status === "warn") ? "warn" : "pass"

const describeBuilt = (model: CompiledModel) =>
  Effect.gen(function* () {
    const wh = yield* Warehouse
    const relation = physicalName(model.target, wh.kind)
    return { relation, described: yield* Effect.either(wh.execute(`DESCRIBE SELECT * FROM ${relation}`)) }
  })

/** True when the warehouse has the model's relation (what `pcli test` calls built). */
export const isBuilt = (model: CompiledModel) => Effect.map(describeBuilt(model), ({ described }) => described._tag === "Right")

/** The model's tests against its built relation; `not_built` when the warehouse has no such relation. */
export const testBuiltModel = (model: CompiledModel) =>
  Effect.gen(function* () {
    const { relation, described } = yield* describeBuilt(model)
    const tests = model.definition.sidecar.tests
    if (described._tag === "Left") {
      return { model: model.name, relation, status: "not_built", tests: tests.map((t) => ({ test: describeTest(t), severity: t.severity, status: "error", detail: `${relation} is not built (pcli run builds it)` })) } satisfies TestedModel
    }
    const columns = described.right.rows.map((r) => String(r[0]))
    const results = yield* Effect.forEach(tests, (t) => runOne(model.name, t, relation, columns))
    return { model: model.name, relation, status: worst(results), tests: results } satisfies TestedModel
  })
