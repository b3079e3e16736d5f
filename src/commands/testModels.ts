import { Effect } from "effect"
import type { TestOutput } from "../schemas/inspect"
import { selectModels } from "../services/Project/select"
import { ProjectContext } from "../services/ProjectConfig/ProjectContext"
import { testBuiltModel } from "../services/Runner/testBuilt"
import { compiledProject } from "./compile"

/** `pcli test [--select …]`: the selected models' data tests against what is built, in execution order. */
export const testModels = (select: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const { root } = yield* ProjectContext
    const project = yield* compiledProject
    const names = yield* selectModels(project, root, select)
    const withTests = names.map((n) => project.models.get(n)!).filter((m) => m.definition.sidecar.tests.length > 0)
    const models = yield* Effect.forEach(withTests, testBuiltModel)
    const results = models.flatMap((m) => (m.status === "not_built" ? [] : m.tests))
    const count = (status: string) => results.filter((t) => t.status === status).length
    return {
      command: "test",
      select: [...select],
      models,
      tests: models.reduce((n, m) => n + m.tests.length, 0),
      passed: count("pass"),
      failed: count("fail"),
      warned: count("warn"),
      errored: count("error"),
      not_built: models.filter((m) => m.status === "not_built").length
    } satisfies TestOutput
  })
