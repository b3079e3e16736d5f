import { Effect, Option } from "effect"
import type { CompileOutput } from "../schemas/pipeline"
import { Environment } from "../services/Environment/Environment"
import type { MaskingConfig } from "../services/PolicyEngine/masking"
import * as Compiler from "../services/Project/compile"
import { ProjectContext, type ResolvedProject } from "../services/ProjectConfig/ProjectContext"
import { compileOutput } from "../services/Runner/output"

/** The project's models compiled: parsed, references resolved, ordered and layered. */
export const compiledProject = Effect.gen(function* () {
  const { modelsDir } = yield* ProjectContext
  const compiler = yield* Compiler.PipelineCompiler
  return yield* compiler.compile({ modelsDir, env: yield* Environment })
})

/** What W004 reads of pcli.toml (nothing without one: every tag is then unresolved). */
const maskingOf = (project: ResolvedProject): MaskingConfig =>
  Option.match(project.config, {
    onNone: () => ({ mask: undefined, classifications: undefined }),
    onSome: (c) => ({ mask: c.settings.mask, classifications: c.settings.classifications })
  })

/** `pcli compile`. */
export const compile: Effect.Effect<
  CompileOutput,
  Effect.Effect.Error<typeof compiledProject>,
  Effect.Effect.Context<typeof compiledProject>
> = Effect.gen(function* () {
  const project = yield* ProjectContext
  return compileOutput(yield* compiledProject, project.modelsDir, maskingOf(project))
})

/**
 * `pcli compile`'s output as `encode` writes it, through the compile index: a warm compile whose
 * models' summaries are unchanged returns the bytes it returned before. One encoding per project:
 * the index keys what it keeps by the models directory and the masking blocks W004 reads (editing
 * `[mask]` or `[classifications]` re-renders from the stored summaries).
 */
export const compileEncoded = (encode: (out: CompileOutput) => Effect.Effect<string | Uint8Array>) =>
  Effect.gen(function* () {
    const project = yield* ProjectContext
    const { modelsDir } = project
    const env = yield* Environment
    const masking = maskingOf(project)
    const renderKey = JSON.stringify([modelsDir, masking.mask ?? null, masking.classifications ?? null])
    return yield* Compiler.compileRendered({ modelsDir, env }, renderKey, (project) => encode(compileOutput(project, modelsDir, masking)))
  })
