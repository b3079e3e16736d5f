// The compiler's service tag and its lazy layer, apart from compile.ts: a layer that only provides the compiler
// (review's, audit --for's) then loads none of the compile's modules until something compiles.
import type { FileSystem, Path } from "@effect/platform"
import { Context, Effect, Layer } from "effect"
import type { CompiledProject, CompileError } from "./compile"
import type { LoadModelsOptions } from "../models"

/** Compiles a models directory. */
export interface PipelineCompilerService {
  readonly compile: (options: LoadModelsOptions) => Effect.Effect<CompiledProject, CompileError>
}

export class PipelineCompiler extends Context.Tag("pcli/PipelineCompiler")<PipelineCompiler, PipelineCompilerService>() {}

/**
 * `layer` (load.ts) whose load through the compile cache loads on a first compile: for the readers of the compile
 * index's graph (audit --for, review), which mostly never compile. Apart from load.ts, which a bundle evaluates whole.
 */
export const lazyLayer = (): Layer.Layer<PipelineCompiler, never, FileSystem.FileSystem | Path.Path> =>
  Layer.effect(
    PipelineCompiler,
    Effect.map(Effect.context<FileSystem.FileSystem | Path.Path>(), (context) => ({
      compile: (options: LoadModelsOptions) =>
        Effect.flatMap(Effect.promise(() => import("./load")), (load) => load.loadAndCompile(options)).pipe(Effect.provide(context))
    }))
  )
