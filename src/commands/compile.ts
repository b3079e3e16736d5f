import { Effect } from "effect"
import type { CompileOutput } from "../schemas/pipeline"
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
 * `pcli compile`'s output as `encode` writes it, through the compile index: a warm compile whose
 * models' summaries are unchanged returns the bytes it returned before. One encoding per project:
 * the index keys what it keeps by the models directory alone.
 */
export const compileEncoded = (encode: (out: CompileOutput) => Effect.Effect<string | Uint8Array>) =>
  Effect.gen(function* () {
    const { modelsDir } = yield* ProjectContext
    const env = yield* Environment
    return yield* Compiler.compileRendered({ modelsDir, env }, modelsDir, (project) => encode(compileOutput(project, modelsDir)))
  })
