import { Effect } from "effect"
import { compiledModelJson, encodeJsonWithArrayBytes } from "../render/json"
import { CompileOutput } from "../schemas/pipeline"
import { Environment } from "../services/Environment/Environment"
import * as Compiler from "../services/Project/compile"
import { ProjectContext } from "../services/ProjectConfig/ProjectContext"
import { compileOutput } from "../services/Runner/output"

/** The project's models compiled: parsed, references resolved, ordered and layered. */
export const compiledProject = Effect.gen(function* () {
  const { modelsDir } = yield* ProjectContext
  const compiler = yield* Compiler.PipelineCompiler
  return yield* compiler.compile({ modelsDir, env: yield* Environment })
})

/** `pcli compile`. */
export const compile: Effect.Effect<
  CompileOutput,
  Effect.Effect.Error<typeof compiledProject>,
  Effect.Effect.Context<typeof compiledProject>
> = Effect.gen(function* () {
  const { modelsDir } = yield* ProjectContext
  return compileOutput(yield* compiledProject, modelsDir)
})

/**
 * `pcli compile`'s output as the one encoder writes it (`encodeJson(CompileOutput, …)` of `compile`),
 * through the compile index: a warm compile whose models' summaries are unchanged prints the text it printed before.
 */
export const compileJson = Effect.gen(function* () {
  const { modelsDir } = yield* ProjectContext
  const env = yield* Environment
  return yield* Compiler.compileRendered({ modelsDir, env }, modelsDir, (project) => {
    const out = compileOutput(project, modelsDir)
    // `encodeJson(CompileOutput, out)`'s UTF-8 bytes, the models written by the field-by-field writer and the name lists as JSON.stringify writes them.
    return encodeJsonWithArrayBytes(
      CompileOutput,
      { ...out, execution_order: [], execution_layers: [], models: [] },
      "models",
      compiledModelJson,
      out.models,
      { execution_order: out.execution_order, execution_layers: out.execution_layers }
    )
  })
})
