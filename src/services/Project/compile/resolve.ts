import { Effect, Either } from "effect"
import type { SourceRef } from "../../../schemas/model"
import { parsePartitionKey } from "../partitionKeys"
import type { CompiledModel, CompiledProject, CompileError } from "./compile"
import type { StatementFailed } from "../../Warehouse/Warehouse"
import type { ModelLoadError, ModelSummary } from "../models"
import { AmbiguousReference, DependencyCycle, DuplicateModel, DuplicateTarget, InvalidStrategy, type ModelSqlInvalid, UnknownReference } from "../errors"
import { findCycle } from "./graph"
import { depthsIndexed, kahnOrderIndexed, reachableCountsIndexed } from "./graphIndexed"
import { formatTableRef, type TableRef } from "../sql"

// The steps of `compileSummaries` (compile.ts): check and number the models, resolve their
// references, order and layer them. Plain functions, each giving its first error as a value.

/** A model as the compile takes it: its summary, and what it was compiled from. */
export interface Item<D> {
  readonly summary: ModelSummary
  readonly definition: D
}

/** A model's target lower-cased, for matching references (`refMatches` with the case folded once). */
interface LoweredTarget {
  /** The model's number (its place among the sorted names). */
  readonly model: number
  readonly schema: string
  readonly catalog: string
}

/** The models checked and numbered: a model's number is its place among the sorted names. */
export interface IndexedModels<D> {
  readonly byName: ReadonlyMap<string, Item<D>>
  readonly names: ReadonlyArray<string>
  readonly numberOf: ReadonlyMap<string, number>
  /** Targets by lower-cased table name: resolution is O(candidates), not O(models). */
  readonly byTable: ReadonlyMap<string, ReadonlyArray<LoweredTarget>>
}

/** Each model's upstream and downstream models by number (both ascending), and the sources its SQL reads. */
export interface Resolved {
  readonly upstream: ReadonlyArray<ReadonlyArray<number>>
  readonly downstream: ReadonlyArray<ReadonlyArray<number>>
  readonly sourceRefs: ReadonlyArray<ReadonlyArray<string>>
}

const lower = (s: string | undefined) => s?.toLowerCase()

/** True when the reference's parts equal the trailing parts of `catalog.schema.table`. */
const refMatches = (ref: TableRef, target: { catalog?: string | undefined; schema: string; table: string }) =>
  lower(ref.table) === lower(target.table) &&
  (ref.schema === undefined || lower(ref.schema) === lower(target.schema)) &&
  (ref.catalog === undefined || target.catalog === undefined || lower(ref.catalog) === lower(target.catalog))

/** What is wrong with a content-addressed or time-interval model's strategy, if anything. */
const strategyProblem = (model: ModelSummary): InvalidStrategy | undefined => {
  const s = model.strategy
  if (s.type === "content_addressed") {
    const prefix = s.storage_prefix
    if (prefix.trim() === "") return new InvalidStrategy({ model: model.name, detail: "storage_prefix is empty" })
    const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(prefix)?.[1]
    if (scheme !== undefined && scheme.toLowerCase() !== "file") {
      return new InvalidStrategy({
        model: model.name,
        detail: `storage_prefix ${prefix}: only file:// or a project-relative directory is supported`
      })
    }
    if (s.partition_columns.length > 0) {
      return new InvalidStrategy({ model: model.name, detail: "partition_columns are not supported for content_addressed yet" })
    }
  }
  if (s.type === "time_interval" && s.first_partition !== undefined) {
    if (parsePartitionKey(s.first_partition, s.granularity) === undefined) {
      return new InvalidStrategy({ model: model.name, detail: `first_partition ${s.first_partition} is not a canonical ${s.granularity} key` })
    }
  }
  return undefined
}

/** Checks names, targets and strategies (in the items' order, the first problem wins), and numbers the models. */
export const indexModels = <D>(items: ReadonlyArray<Item<D>>): Either.Either<IndexedModels<D>, DuplicateModel | DuplicateTarget | InvalidStrategy> => {
  const byName = new Map<string, Item<D>>()
  const byTarget = new Map<string, string>()
  for (const item of items) {
    const def = item.summary
    if (byName.has(def.name)) return Either.left(new DuplicateModel({ model: def.name, detail: "defined twice" }))
    byName.set(def.name, item)
    // One physical table, one owner: on the embedded warehouse `a.mart.x` and `b.mart.x` are one table.
    const t = def.target
    const key = `${t.schema}.${t.table}`.toLowerCase()
    const other = byTarget.get(key)
    if (other !== undefined) return Either.left(new DuplicateTarget({ models: [other, def.name], relation: key }))
    byTarget.set(key, def.name)
    const strategy = def.strategy.type
    if (strategy === "content_addressed" || strategy === "time_interval") {
      const problem = strategyProblem(def)
      if (problem !== undefined) return Either.left(problem)
    }
  }
  const names = [...byName.keys()].sort()
  const numberOf = new Map<string, number>()
  for (let i = 0; i < names.length; i++) numberOf.set(names[i]!, i)
  const byTable = new Map<string, Array<LoweredTarget>>()
  for (const { summary } of items) {
    const t = summary.target
    const key = t.table.toLowerCase()
    const entry: LoweredTarget = { model: numberOf.get(summary.name)!, schema: t.schema.toLowerCase(), catalog: t.catalog.toLowerCase() }
    const list = byTable.get(key)
    if (list === undefined) byTable.set(key, [entry])
    else list.push(entry)
  }
  return Either.right({ byName, names, numberOf, byTable })
}

/**
 * Resolves each model's `depends_on` and SQL references to models (a reference naming another
 * model's target) or declared sources, in name order; the first unknown or ambiguous one fails.
 */
export const resolveReferences = <D>(
  models: IndexedModels<D>,
  refs: ReadonlyMap<string, ReadonlyArray<TableRef>>
): Either.Either<Resolved, UnknownReference | AmbiguousReference> => {
  const { byName, names, numberOf, byTable } = models
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
      if (m === undefined) return Either.left(new UnknownReference({ model: name, reference: dep, via: "depends_on" }))
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
        return Either.left(new AmbiguousReference({ model: name, reference: formatTableRef(ref), candidates: matching.sort() }))
      }
      if (other !== -1) {
        addDep(other)
        continue
      }
      if (readsItself) continue // the model reading its own target (incremental self-reference)
      const isSource = def.sources.some((s: SourceRef) => refMatches(ref, s))
      if (!isSource) return Either.left(new UnknownReference({ model: name, reference: formatTableRef(ref), via: "sql" }))
      sources.push(formatTableRef(ref))
    }
    // Numbers sort as the names do; `i` ascends, so every downstream list is built sorted.
    deps.sort((a, b) => a - b)
    upstream[i] = deps
    for (const dep of deps) downstream[dep]!.push(i)
    sourceRefs[i] = sources
  }
  return Either.right({ upstream, downstream, sourceRefs })
}

/** Orders and layers the resolved models into the compiled project; a cycle fails. */
export const assembleProject = <D>(
  models: IndexedModels<D>,
  refs: ReadonlyMap<string, ReadonlyArray<TableRef>>,
  { upstream, downstream, sourceRefs }: Resolved
): Either.Either<CompiledProject<D>, DependencyCycle> => {
  const { byName, names } = models
  const namesOf = (list: ReadonlyArray<number>): Array<string> => list.map((m) => names[m]!)
  const { order, blocked } = kahnOrderIndexed(upstream, downstream)
  if (blocked.length > 0) {
    const cycle = findCycle(namesOf(blocked), new Map(names.map((name, i) => [name, namesOf(upstream[i]!)])))
    return Either.left(new DependencyCycle({ model: cycle[0] ?? names[blocked[0]!]!, cycle }))
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
  const compiled = new Map<string, CompiledModel<D>>()
  const orderNames: Array<string> = new Array(order.length)
  for (let k = 0; k < order.length; k++) {
    const i = order[k]!
    const name = names[i]!
    orderNames[k] = name
    const { summary, definition } = byName.get(name)!
    compiled.set(name, {
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
      classification: summary.classification,
      downstreams: downstream[i]!.length,
      reachableDownstreams: reachable[i]!
    })
  }
  return Either.right({ models: compiled, order: orderNames, layers, downstream: downstreamByName })
}

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
