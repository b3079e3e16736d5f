import type { FileSystem, Path } from "@effect/platform"
import { Context, Effect, Layer } from "effect"
import type { StrategyBlock, TargetBlock } from "../../../schemas/model"
import type { StatementFailed } from "../../Warehouse/Warehouse"
import type {
  AmbiguousReference,
  DependencyCycle,
  DuplicateModel,
  DuplicateTarget,
  InvalidStrategy,
  ModelSqlInvalid,
  UnknownReference
} from "../errors"
import { closureOf } from "./graph"
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
import {
  listModels,
  type LoadModelsOptions,
  type ModelDefinition,
  type ModelListing,
  type ModelLoadError,
  type ModelSummary,
  summaryOf
} from "../models"
import { assembleProject, indexModels, type Item, resolveReferences } from "./resolve"
import { parseableSql, parseReferences, type TableRef } from "../sql"

/** A model after dependency resolution (`D`: what it was compiled from; the full definition but for `pcli compile`'s index). */
export interface CompiledModel<D = ModelDefinition> {
  readonly name: string
  readonly definition: D
  readonly target: TargetBlock
  readonly strategy: StrategyBlock
  /** Models this one reads or declares, sorted. */
  readonly upstream: ReadonlyArray<string>
  /** Tables the SQL reads, as written. */
  readonly sqlRefs: ReadonlyArray<TableRef>
  /** SQL references that resolved to a declared source (external tables). */
  readonly sourceRefs: ReadonlyArray<string>
  /** Index of the execution layer (longest upstream path). */
  readonly depth: number
  /** The `layer` tag, if any (what policy scopes call the layer). */
  readonly layer: string | undefined
  readonly contracted: boolean
  readonly downstreams: number
  readonly reachableDownstreams: number
}

export interface CompiledProject<D = ModelDefinition> {
  readonly models: ReadonlyMap<string, CompiledModel<D>>
  /** Kahn order, alphabetical ties. */
  readonly order: ReadonlyArray<string>
  /** Execution layers by depth, alphabetical within a layer. */
  readonly layers: ReadonlyArray<ReadonlyArray<string>>
  /** Direct downstreams of each model, sorted. */
  readonly downstream: ReadonlyMap<string, ReadonlyArray<string>>
}

export type CompileError =
  | ModelLoadError
  | ModelSqlInvalid
  | UnknownReference
  | AmbiguousReference
  | DependencyCycle
  | DuplicateModel
  | DuplicateTarget
  | InvalidStrategy
  | StatementFailed

/** Resolves dependencies (depends_on and SQL references), orders and layers the models: the plain path, DuckDB parsing the SQL. */
export const compileModels = (definitions: ReadonlyArray<ModelDefinition>): Effect.Effect<CompiledProject, Exclude<CompileError, ModelLoadError>> =>
  compileSummaries(
    definitions.map((definition) => ({ summary: summaryOf(definition), definition })),
    // Evaluated only once names are known unique (compileSummaries checks them first).
    Effect.suspend(() =>
      parseReferences(
        [...definitions]
          .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
          .map((d) => ({ model: d.name, sql: parseableSql(d.sql), file: d.sqlPath }))
      )
    )
  )

/**
 * `compileModels` over summaries: checks names, targets and strategies, then reads `references`
 * (the tables each model's SQL reads), resolves, orders and layers. Errors keep that order.
 */
export const compileSummaries = <D>(
  items: ReadonlyArray<Item<D>>,
  references: Effect.Effect<ReadonlyMap<string, ReadonlyArray<TableRef>>, ModelSqlInvalid | StatementFailed>
): Effect.Effect<CompiledProject<D>, Exclude<CompileError, ModelLoadError>> =>
  Effect.gen(function* () {
    const models = yield* indexModels(items)
    const refs = yield* references
    return yield* assembleProject(models, refs, yield* resolveReferences(models, refs))
  })

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
const ofSidecarSummary = ([name, target, strategy, dependsOn, sources, layer]: SidecarSummary, contracted: boolean): ModelSummary => ({
  name,
  target,
  strategy,
  dependsOn,
  sources,
  layer: layer ?? undefined,
  contracted
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

/** Transitive downstream closure of a model (excluding it), sorted; empty for an unknown model. */
export const downstreamClosure = (project: CompiledProject<unknown>, model: string): ReadonlyArray<string> =>
  closureOf(model, project.downstream)

/** Size of the downstream closure, or undefined when the model is not in the project (uncomputable). */
export const reachableDownstreams = (project: CompiledProject, model: string): number | undefined =>
  project.models.get(model)?.reachableDownstreams

/** Compiles a models directory. */
export interface PipelineCompilerService {
  readonly compile: (options: LoadModelsOptions) => Effect.Effect<CompiledProject, CompileError>
}

export class PipelineCompiler extends Context.Tag("pcli/PipelineCompiler")<PipelineCompiler, PipelineCompilerService>() {}

export const layer: Layer.Layer<PipelineCompiler, never, FileSystem.FileSystem | Path.Path> = Layer.effect(
  PipelineCompiler,
  Effect.map(Effect.context<FileSystem.FileSystem | Path.Path>(), (context) => ({
    compile: (options: LoadModelsOptions) =>
      loadAndCompile(options).pipe(Effect.provide(context))
  }))
)
