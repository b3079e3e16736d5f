import { Effect } from "effect"
import type { LsModel, LsOutput } from "../schemas/inspect"
import type { ListModelsOutput } from "../schemas/lineage"
import { projectRelative, selectModels } from "../services/Project/select"
import { ProjectContext } from "../services/ProjectConfig/ProjectContext"
import { compiledProject } from "./compile"

/** MCP `list_models`: the compiled models in execution order, with what policy scopes read. */
export const listModels = Effect.gen(function* () {
  const { modelsDir } = yield* ProjectContext
  const project = yield* compiledProject
  const models = project.order.map((name) => {
    const m = project.models.get(name)!
    return {
      name,
      target: `${m.target.catalog}.${m.target.schema}.${m.target.table}`,
      ...(m.layer === undefined ? {} : { layer: m.layer }),
      depth: m.depth,
      contracted: m.contracted,
      tags: { ...m.definition.sidecar.tags },
      classifications: [...new Set(Object.values(m.definition.sidecar.classification))].sort(),
      depends_on: [...m.upstream],
      downstreams: m.downstreams
    }
  })
  return { command: "list_models", models_dir: modelsDir, count: models.length, models } satisfies ListModelsOutput
})

/** `pcli ls [--select …]`: the selected models in execution order, with what each declares. */
export const lsModels = (select: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const { modelsDir, root } = yield* ProjectContext
    const project = yield* compiledProject
    const names = yield* selectModels(project, root, select)
    const models = names.map((name): LsModel => {
      const m = project.models.get(name)!
      const d = m.definition
      return {
        name,
        target: `${m.target.catalog}.${m.target.schema}.${m.target.table}`,
        strategy: m.strategy.type,
        ...(m.layer === undefined ? {} : { layer: m.layer }),
        tags: { ...d.sidecar.tags },
        contracted: m.contracted,
        contract_columns: d.contract?.columns.length ?? 0,
        tests: d.sidecar.tests.length,
        depends_on: [...m.upstream],
        path: projectRelative(root, d.sqlPath)
      }
    })
    return { command: "ls", models_dir: modelsDir, select: [...select], count: models.length, models } satisfies LsOutput
  })
