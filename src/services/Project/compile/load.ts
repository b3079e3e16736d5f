// The compile through the compile cache (cachedLoad.ts): apart from compile.ts, so the readers of the compile index's
// graph (indexedGraph.ts), which compile stored summaries, load none of the cached load, its files and its read-ahead.
import type { FileSystem, Path } from "@effect/platform"
import { Effect, Layer } from "effect"
import {
  type CachedLoad,
  type CacheUse,
  CompileCacheWrites,
  definitionsShape,
  type LoadOptions,
  type LoadShape,
  loadShaped,
  type SidecarSummary
} from "../cache"
import { listModels, type LoadModelsOptions, type ModelListing, type ModelSummary, summaryOf } from "../models"
import { type CompiledProject, type CompileError, PipelineCompiler } from "./compile"
import { compileSummaries } from "./resolve"

/**
 * Loads and compiles a models directory through the compile cache (`cachedLoad.ts`): only SQL
 * and sidecar texts not seen before are parsed, the SQL in DuckDB while the sidecars decode.
 * Errors keep their order: file and sidecar errors first, then the checks of
 * `compileModels`, then SQL errors. `onCacheUse` sees how the cache was used.
 */
export const loadAndCompile = (
  options: LoadModelsOptions & {
    readonly cache?: boolean
    /** How the load reads ahead on a worker (`LoadOptions`). */
    readonly readAhead?: LoadOptions["readAhead"]
    readonly onCacheUse?: (use: CacheUse) => void
    /** Sees the listing and the load (its file stamps feed the compile index). */
    readonly onLoaded?: (listing: ModelListing, load: CachedLoad<unknown>) => void
    /** Takes the wait for the cache's save, which then goes on while the caller does (else the compile waits for it). */
    readonly onSaving?: (saved: Effect.Effect<void>) => void
  }
): Effect.Effect<CompiledProject, CompileError, FileSystem.FileSystem | Path.Path> =>
  Effect.flatMap(listModels(options), (listing) => compileListing(options, listing))

/** `loadAndCompile` of models already listed. */
export const compileListing = (
  options: Parameters<typeof loadAndCompile>[0],
  listing: ModelListing
): Effect.Effect<CompiledProject, CompileError, FileSystem.FileSystem | Path.Path> => compileShaped(options, listing, definitionsShape, summaryOf)

/** A model's summary from the worker's summary of its sidecar (what `summaryOf` gives of the decoded definition). */
const ofSidecarSummary = ([name, target, strategy, dependsOn, sources, layer, classification]: SidecarSummary, contracted: boolean): ModelSummary => ({
  name,
  target,
  strategy,
  dependsOn,
  sources,
  layer: layer ?? undefined,
  contracted,
  classification
})

/** Models loaded as their summaries alone: what `pcli compile` renders. */
export const summariesShape: LoadShape<ModelSummary> = { ofDefinition: summaryOf, ofSummary: ofSidecarSummary }

/** `compileListing` compiling each model's summary alone (each compiled model's `definition` is its summary): `pcli compile`'s. */
export const compileListingSummaries = (
  options: Parameters<typeof loadAndCompile>[0],
  listing: ModelListing
): Effect.Effect<CompiledProject<ModelSummary>, CompileError, FileSystem.FileSystem | Path.Path> => compileShaped(options, listing, summariesShape, (summary) => summary)

const compileShaped = <M>(
  options: Parameters<typeof loadAndCompile>[0],
  listing: ModelListing,
  shape: LoadShape<M>,
  summarize: (model: M) => ModelSummary
): Effect.Effect<CompiledProject<M>, CompileError, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function* () {
    const loaded = yield* loadShaped(options, listing, "all", shape)
    options.onCacheUse?.(loaded.use)
    options.onLoaded?.(listing, loaded)
    const models = yield* loaded.definitions
    const project = yield* compileSummaries(
      models.map((definition) => ({ summary: summarize(definition), definition })),
      loaded.parsed
    )
    if (yield* CompileCacheWrites) {
      const saved = yield* loaded.save
      if (options.onSaving !== undefined) options.onSaving(saved)
      else yield* saved
    }
    return project
  })

/** The compiler: `loadAndCompile` (`compile.ts`'s `lazyLayer` loads this module on a first compile). */
export const layer: Layer.Layer<PipelineCompiler, never, FileSystem.FileSystem | Path.Path> = Layer.effect(
  PipelineCompiler,
  Effect.map(Effect.context<FileSystem.FileSystem | Path.Path>(), (context) => ({
    compile: (options: LoadModelsOptions) => loadAndCompile(options).pipe(Effect.provide(context))
  }))
)
