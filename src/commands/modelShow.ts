import { Effect } from "effect"
import type { ModelShowOutput } from "../schemas/lineage"
import { ModelNotFound } from "../services/PolicyEngine/attributes"
import { ProjectContext } from "../services/ProjectConfig/ProjectContext"
import { compiledProject } from "./compile"

/** `pcli show <model>`: read-only; the model's SQL, sidecar, tests and contract as compiled now. */
export const modelShow = (model: string) =>
  Effect.gen(function* () {
    const { modelsDir } = yield* ProjectContext
    const project = yield* compiledProject
    const m = project.models.get(model)
    if (m === undefined) return yield* new ModelNotFound({ model, modelsDir })
    const def = m.definition
    const out: ModelShowOutput = {
      command: "show",
      name: model,
      target: `${m.target.catalog}.${m.target.schema}.${m.target.table}`,
      strategy: m.strategy.type,
      ...(m.layer === undefined ? {} : { layer: m.layer }),
      ...(def.sidecar.intent === undefined ? {} : { intent: def.sidecar.intent }),
      sql_path: def.sqlPath,
      sql: def.sql,
      tags: { ...def.sidecar.tags },
      classification: { ...def.sidecar.classification },
      tests: [...def.sidecar.tests],
      contracted: m.contracted,
      contract: def.contract === undefined ? null : { columns: def.contract.columns.map((c) => ({ ...c })), required: [...def.contract.rules.required] },
      depends_on: [...m.upstream],
      downstreams: m.downstreams
    }
    return out
  })
