import type { ModelExecution } from "../../schemas/pipeline"
import type { CompiledModel } from "../Project/compile"
import { recipeHash, sqlHash } from "./strategies"

/** A model's row in the run record: the fields given, every other one empty; the hashes of its own SQL unless given. */
export const executionRow = (
  name: string,
  model: CompiledModel,
  position: number,
  fields: Partial<ModelExecution> & Pick<ModelExecution, "status">
): ModelExecution => {
  const baseSql = model.definition.sql
  const hashes = fields.sql_hash !== undefined && fields.recipe_hash !== undefined
    ? { sql_hash: fields.sql_hash, recipe_hash: fields.recipe_hash }
    : { sql_hash: sqlHash(baseSql), recipe_hash: recipeHash(model, baseSql) }
  return {
    model_name: name,
    position,
    strategy: model.strategy.type,
    started_at: null,
    finished_at: null,
    duration_ms: null,
    rows_affected: null,
    attempts: 0,
    ...hashes,
    output_hash: null,
    error_code: null,
    error_class: null,
    error_message: null,
    failed_upstream: null,
    warnings: [],
    intervals_built: null,
    ...fields
  }
}
