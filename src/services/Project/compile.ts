import type { FileSystem, Path } from "@effect/platform"
import { Context, Effect, Layer } from "effect"
import type { SourceRef, StrategyBlock, TargetBlock } from "../../schemas/model"
import type { StatementFailed } from "../Warehouse/Warehouse"
import {
  AmbiguousReference,
  DependencyCycle,
  DuplicateModel,
  InvalidStrategy,
  type ModelSqlInvalid,
  UnknownReference
} from "./errors"
import { closureOf, findCycle } from "./graph"
import { depthsIndexed, kahnOrderIndexed, reachableCountsIndexed } from "./graphIndexed"
import { type CachedLoad, definitionsShape, type LoadShape, loadShaped } from "./cachedLoad"
import type { SidecarSummary } from "./fileWork"
import type { CacheUse } from "./loadFiles"
import { CompileCacheWrites } from "./compileCache"
import {
  listModels,
  type LoadModelsOptions,
  type ModelDefinition,
  type ModelListing,
  type ModelLoadError
} from "./models"
import { parseableSql, parsePartitionKey } from "../Runner/partitions"
import { formatTableRef, parseReferences, type TableRef } from "./sqlRefs"

/** What resolution, ordering and validation read of a model: its sidecar and contract, summarised. */
export interface ModelSummary {
  readonly name: string
  readonly target: TargetBlock
  readonly strategy: StrategyBlock
  readonly dependsOn: ReadonlyArray<string>
  readonly sources: ReadonlyArray<SourceRef>
  /** The `layer` tag, if any. */
  readonly layer: string | undefined
  readonly contracted: boolean
}

export const summaryOf = (def: ModelDefinition): ModelSummary => ({
  name: def.name,
  target: def.sidecar.target,
  strategy: def.sidecar.strategy,
  dependsOn: def.sidecar.depends_on,
  sources: def.sidecar.sources,
  layer: def.sidecar.tags["layer"],
  contracted: def.contract !== undefined
})

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
  | InvalidStrategy
  | StatementFailed

const lower = (s: string | undefined) => s?.toLowerCase()

/** A model's target lower-cased, for matching references (`refMatches` with the case folded once). */
interface LoweredTarget {
  /** The model's number (its place among the sorted names). */
  readonly model: number
  readonly schema: string
  readonly catalog: string
}

/** True when the reference's parts equal the trailing parts of `catalog.schema.table`. */
const refMatches = (ref: TableRef, target: { catalog?: string | undefined; schema: string; table: string }) =>
  lower(ref.table) === lower(target.table) &&
  (ref.schema === undefined || lower(ref.schema) === lower(target.schema)) &&
  (ref.catalog === undefined || target.catalog === undefined || lower(ref.catalog) === lower(target.catalog))

const validateStrategy = (model: ModelSummary): Effect.Effect<void, InvalidStrategy> => {
  const s = model.strategy
  if (s.type === "content_addressed") {
    const prefix = s.storage_prefix
    if (prefix.trim() === "") return Effect.fail(new InvalidStrategy({ model: model.name, detail: "storage_prefix is empty" }))
    const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(prefix)?.[1]
    if (scheme !== undefined && scheme.toLowerCase() !== "file") {
      return Effect.fail(
        new InvalidStrategy({
          model: model.name,
          detail: `storage_prefix ${prefix}: only file:// or a project-relative directory is supported`
        })
      )
    }
    if (s.partition_columns.length > 0) {
      return Effect.fail(
        new InvalidStrategy({ model: model.name, detail: "partition_columns are not supported for content_addressed yet" })
      )
    }
  }
  if (s.type === "time_interval" && s.first_partition !== undefined) {
    if (parsePartitionKey(s.first_partition, s.granularity) === undefined) {
      return Effect.fail(
        new InvalidStrategy({
          model: model.name,
          detail: `first_partition ${s.first_partition} is not a canonical ${s.granularity} key`
        })
      )
    }
  }
  return Effect.void
}

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
  items: ReadonlyArray<{ readonly summary: ModelSummary; readonly definition: D }>,
  references: Effect.Effect<ReadonlyMap<string, ReadonlyArray<TableRef>>, ModelSqlInvalid | StatementFailed>
): Effect.Effect<CompiledProject<D>, Exclude<CompileError, ModelLoadError>> =>
  Effect.gen(function* () {
    const byName = new Map<string, { readonly summary: ModelSummary; readonly definition: D }>()
    const byTarget = new Map<string, string>()
    for (const item of items) {
      const def = item.summary
      if (byName.has(def.name)) return yield* new DuplicateModel({ model: def.name, detail: "defined twice" })
      byName.set(def.name, item)
      const t = def.target
      const key = `${t.catalog}.${t.schema}.${t.table}`.toLowerCase()
      const other = byTarget.get(key)
      if (other !== undefined) {
        return yield* new DuplicateModel({ model: def.name, detail: `target ${key} is also the target of ${other}` })
      }
      byTarget.set(key, def.name)
      const strategy = def.strategy.type
      if (strategy === "content_addressed" || strategy === "time_interval") yield* validateStrategy(def)
    }
    const names = [...byName.keys()].sort()
    // Models by number (their place in `names`): the graph below works on numbers, not names.
    const numberOf = new Map<string, number>()
    for (let i = 0; i < names.length; i++) numberOf.set(names[i]!, i)
    // Index targets by table name so resolution is O(candidates), not O(models); each target lower-cased once.
    const byTable = new Map<string, Array<LoweredTarget>>()
    for (const { summary } of items) {
      const t = summary.target
      const key = t.table.toLowerCase()
      const entry: LoweredTarget = { model: numberOf.get(summary.name)!, schema: t.schema.toLowerCase(), catalog: t.catalog.toLowerCase() }
      const list = byTable.get(key)
      if (list === undefined) byTable.set(key, [entry])
      else list.push(entry)
    }
    const refs = yield* references
    const upstream: Array<Array<number>> = new Array(names.length)
    const downstream: Array<Array<number>> = Array.from({ length: names.length }, () => [])
    const sourceRefs: Array<Array<string>> = new Array(names.length)
    // `added[m] === i + 1`: model m is already among model i's upstreams.
    const added = new Int32Array(names.length)
    for (let i = 0; i < names.length; i++) {
      const name = names[i]!
      const def = byName.get(name)!.summary
      const deps: Array<number> = []
      const addDep = (m: number) => {
        if (m !== i && added[m] !== i + 1) {
          added[m] = i + 1
          deps.push(m)
        }
      }
      for (const dep of def.dependsOn) {
        const m = numberOf.get(dep)
        if (m === undefined) return yield* new UnknownReference({ model: name, reference: dep, via: "depends_on" })
        addDep(m)
      }
      const sources: Array<string> = []
      for (const ref of refs.get(name) ?? []) {
        // The models whose target the reference names (`refMatches`), without building lists: itself, and the first other.
        const schema = ref.schema?.toLowerCase()
        const catalog = ref.catalog?.toLowerCase()
        const candidates = byTable.get(ref.table.toLowerCase()) ?? []
        const named = (m: LoweredTarget) => (schema === undefined || schema === m.schema) && (catalog === undefined || catalog === m.catalog)
        let readsItself = false
        let other = -1
        let others = 0
        for (const m of candidates) {
          if (!named(m)) continue
          if (m.model === i) readsItself = true
          else if (others++ === 0) other = m.model
        }
        if (others > 1) {
          const matching = candidates.filter((m) => m.model !== i && named(m)).map((m) => names[m.model]!)
          return yield* new AmbiguousReference({ model: name, reference: formatTableRef(ref), candidates: matching.sort() })
        }
        if (other !== -1) {
          addDep(other)
          continue
        }
        if (readsItself) continue // the model reading its own target (incremental self-reference)
        const isSource = def.sources.some((s: SourceRef) => refMatches(ref, s))
        if (!isSource) return yield* new UnknownReference({ model: name, reference: formatTableRef(ref), via: "sql" })
        sources.push(formatTableRef(ref))
      }
      // Numbers sort as the names do; `i` ascends, so every downstream list is built sorted.
      deps.sort((a, b) => a - b)
      upstream[i] = deps
      for (const dep of deps) downstream[dep]!.push(i)
      sourceRefs[i] = sources
    }
    const namesOf = (list: ReadonlyArray<number>): Array<string> => list.map((m) => names[m]!)
    const { order, blocked } = kahnOrderIndexed(upstream, downstream)
    if (blocked.length > 0) {
      const cycle = findCycle(namesOf(blocked), new Map(names.map((name, i) => [name, namesOf(upstream[i]!)])))
      return yield* new DependencyCycle({ model: cycle[0] ?? names[blocked[0]!]!, cycle })
    }
    const depth = depthsIndexed(order, upstream)
    const reachable = reachableCountsIndexed(order, downstream)
    const layers: Array<Array<string>> = []
    for (let i = 0; i < names.length; i++) (layers[depth[i]!] ??= []).push(names[i]!)
    // Direct downstreams by name, keyed in the order the plain resolution first met each upstream.
    const downstreamByName = new Map<string, Array<string>>()
    for (let i = 0; i < names.length; i++) {
      for (const dep of upstream[i]!) if (!downstreamByName.has(names[dep]!)) downstreamByName.set(names[dep]!, namesOf(downstream[dep]!))
    }
    const models = new Map<string, CompiledModel<D>>()
    const orderNames: Array<string> = new Array(order.length)
    for (let k = 0; k < order.length; k++) {
      const i = order[k]!
      const name = names[i]!
      orderNames[k] = name
      const { summary, definition } = byName.get(name)!
      models.set(name, {
        name,
        definition,
        target: summary.target,
        strategy: summary.strategy,
        upstream: namesOf(upstream[i]!),
        sqlRefs: refs.get(name) ?? [],
        sourceRefs: sourceRefs[i]!,
        depth: depth[i]!,
        layer: summary.layer,
        contracted: summary.contracted,
        downstreams: downstream[i]!.length,
        reachableDownstreams: reachable[i]!
      })
    }
    return { models, order: orderNames, layers, downstream: downstreamByName }
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
export const downstreamClosure = (project: CompiledProject, model: string): ReadonlyArray<string> =>
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
