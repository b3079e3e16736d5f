import { Effect } from "effect"
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
import { type LoadModelsOptions, type ModelDefinition, type ModelLoadError, summaryOf } from "../models"
import { compileSummaries } from "./resolve"
import { parseableSql, parseReferences, type TableRef } from "../sql"

export { compileSummaries } from "./resolve"
export { lazyLayer, PipelineCompiler, type PipelineCompilerService } from "./compiler"

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
  /** Column → classification tag. */
  readonly classification: Readonly<Record<string, string>>
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

/** Transitive downstream closure of a model (excluding it), sorted; empty for an unknown model. */
export const downstreamClosure = (project: CompiledProject<unknown>, model: string): ReadonlyArray<string> =>
  closureOf(model, project.downstream)

/** Size of the downstream closure, or undefined when the model is not in the project (uncomputable). */
export const reachableDownstreams = (project: CompiledProject, model: string): number | undefined =>
  project.models.get(model)?.reachableDownstreams

