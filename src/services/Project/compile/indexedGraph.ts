// The compiled graph (models, order, downstreams) for the readers that need only the graph (`audit --for`'s blast
// radius, `review --queue`'s ranking): from the compile index's stored summaries when no model file changed since
// `pcli compile` wrote it, else through the compile cache as before. Same graph: the index's summaries are what that
// compile made of the same files (compileIndex.ts: same build and directory, every file's stamp equal).
import { type FileSystem, Path } from "@effect/platform"
import * as NodeFs from "node:fs"
import { Effect, Either } from "effect"
import { noFile, racyMarginMs, readIndex, stampWidth } from "../cache/indexRead"
import { type CompiledProject, type CompileError, PipelineCompiler } from "./compile"
import { changedModels, compileStoredSummaries, dirStampOf, sameDir, sameNames } from "./indexSteps"
import type { LoadModelsOptions, ModelSummary } from "../models"
import { joinInDir, listModels } from "../modelListing"

/** The graph from the compile index, or undefined when the index is missing, foreign, or any model file or the directory changed. */
export const graphFromIndex = (options: LoadModelsOptions): Effect.Effect<CompiledProject<ModelSummary> | undefined, never, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function* () {
    const index = readIndex(options.modelsDir)
    if (index === undefined) return undefined
    // The directory's stamp stands for its listing (an entry added, removed or renamed changes it), as in compileRendered;
    // a changed directory (a state store's journal beside the models, say) is listed, and its models must be the index's.
    const dir = NodeFs.statSync(options.modelsDir, { throwIfNoEntry: false })
    const dirUnchanged = sameDir(dirStampOf(dir, Date.now() - (options.racyMarginMs ?? racyMarginMs)), index.dirStamp)
    const listing = dirUnchanged ? undefined : Either.getOrUndefined(yield* Effect.either(listModels(options)))
    if (!dirUnchanged && (listing === undefined || !sameNames(listing.names, index.names))) return undefined
    const models =
      listing !== undefined
        ? { ...listing, hasContract: (i: number) => listing.contractPaths[i] !== undefined }
        : { prefix: joinInDir(yield* Path.Path, options.modelsDir)(""), names: index.names, hasContract: (i: number) => index.stamps[i * stampWidth + 8] !== noFile }
    if (changedModels(models, index.stamps).length > 0) return undefined
    const stored = index.summaries()
    if (stored === undefined) return undefined
    return Either.getOrUndefined(yield* Effect.either(compileStoredSummaries(index.names, stored)))
  })

/** The compiled graph: from the compile index where it stands, else `PipelineCompiler`'s compile (its errors as ever). */
export const compiledGraph = (
  options: LoadModelsOptions
): Effect.Effect<CompiledProject<unknown>, CompileError, PipelineCompiler | FileSystem.FileSystem | Path.Path> =>
  Effect.flatMap(graphFromIndex(options), (graph): Effect.Effect<CompiledProject<unknown>, CompileError, PipelineCompiler> =>
    graph !== undefined ? Effect.succeed(graph) : Effect.flatMap(PipelineCompiler, (c) => c.compile(options))
  )
