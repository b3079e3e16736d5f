import { Effect } from "effect"
import type { ListModelsOutput } from "../schemas/lineage"
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
