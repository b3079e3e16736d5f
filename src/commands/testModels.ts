import { Effect } from "effect"
import type { TestOutput } from "../schemas/inspect"
import { checkFreshness, freshnessRule } from "../services/Freshness/Freshness"
import { selectModels } from "../services/Project/select"
import { ProjectContext } from "../services/ProjectConfig/ProjectContext"
import { isBuilt, testBuiltModel } from "../services/Runner/testBuilt"
import { compiledProject } from "./compile"
import { freshnessFails } from "./freshness"
import { SelectionEmpty } from "./selectedModels"

/**
 * `pcli test [--select …]`: the selected models' data tests against what is built, in execution order,
 * then the freshness of the selected built models that declare `[freshness]`. The checks are returned,
 * not recorded: the store is opened only when there is something to record (`recordFreshnessChecks`).
 */
export const testModels = (select: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const { root } = yield* ProjectContext
    const project = yield* compiledProject
    const names = yield* selectModels(project, root, select)
    // A CI step that tests nothing must not pass: refused as `run` and `plan` refuse it.
    if (select.length > 0 && names.length === 0) return yield* new SelectionEmpty({ select })
    const selected = names.map((n) => project.models.get(n)!)
    const models = yield* Effect.forEach(
      selected.filter((m) => m.definition.sidecar.tests.length > 0),
      testBuiltModel
    )
    const results = models.flatMap((m) => (m.status === "not_built" ? [] : m.tests))
    const count = (status: string) => results.filter((t) => t.status === status).length
    // A model whose tests ran is built; the others are asked once, as the tests ask (DESCRIBE).
    const tested = new Map(models.map((m) => [m.model, m.status !== "not_built"]))
    const declaring = yield* Effect.forEach(
      selected.filter((m) => freshnessRule(m) !== undefined),
      (m) => Effect.map(tested.has(m.name) ? Effect.succeed(tested.get(m.name)!) : isBuilt(m), (built) => ({ model: m, built }))
    )
    const checks = yield* checkFreshness(declaring.filter((d) => d.built).map((d) => d.model), null)
    return {
      command: "test",
      select: [...select],
      models,
      tests: models.reduce((n, m) => n + m.tests.length, 0),
      passed: count("pass"),
      failed: count("fail"),
      warned: count("warn"),
      errored: count("error"),
      not_built: models.filter((m) => m.status === "not_built").length,
      ...(checks.length === 0 ? {} : { freshness: [...checks] }),
      freshness_failed: checks.filter(freshnessFails).length,
      freshness_not_built: declaring.filter((d) => !d.built).map((d) => d.model.name)
    } satisfies TestOutput
  })

/**
 * Why `pcli test` fails, or undefined when it passes: an error-severity test that failed or could not
 * run, an error-severity freshness check that is not fresh, or a selected model that is not built
 * (with tests or `[freshness]`: what it declares was not checked). Warnings never fail it.
 */
export const testFailure = (out: TestOutput): string | undefined => {
  const errorTests = out.models
    .filter((m) => m.status !== "not_built")
    .flatMap((m) => m.tests)
    .filter((t) => t.severity === "error" && (t.status === "fail" || t.status === "error")).length
  const notBuilt = new Set([...out.models.filter((m) => m.status === "not_built").map((m) => m.model), ...out.freshness_not_built]).size
  const parts = [
    errorTests > 0 ? `${errorTests} error-severity test(s) failed or could not run` : "",
    out.freshness_failed > 0 ? `${out.freshness_failed} error-severity freshness check(s) not fresh` : "",
    notBuilt > 0 ? `${notBuilt} model(s) not built` : ""
  ].filter((p) => p !== "")
  return parts.length === 0 ? undefined : parts.join("; ")
}
