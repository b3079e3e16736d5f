import { Context, Data, type Effect } from "effect"

/** What the evaluator reads about a model; built from the compiled project. */
export interface ModelAttributes {
  readonly name: string
  readonly tags: Readonly<Record<string, string>>
  /** Tags carried by any of the model's columns. */
  readonly classifications: ReadonlySet<string> | ReadonlyArray<string>
  /** True when a sibling `<model>.contract.toml` exists. */
  readonly contracted: boolean
  /** Defaults to `tags.layer`. */
  readonly layer?: string | undefined
  /** Direct downstream count (informational). */
  readonly downstreams?: number | undefined
  /** Transitive downstream closure size, excluding the model; `undefined` = uncountable. */
  readonly reachableDownstreams: number | undefined
}

/** What policy reads of a compiled model (Project/compile's CompiledModel), named here so PolicyEngine does not import Project. */
export interface CompiledModelFacts {
  readonly name: string
  readonly definition: { readonly sidecar: { readonly tags: Readonly<Record<string, string>>; readonly classification: Readonly<Record<string, string>> } }
  readonly contracted: boolean
  readonly layer: string | undefined
  readonly downstreams: number
  readonly reachableDownstreams: number | undefined
  /** The physical relation it writes (a view-swap plan's facts leave it out: they build nothing). */
  readonly target?: { readonly schema: string; readonly table: string } | undefined
}

/** A relation as compile's duplicate-target check and the build record name it: `schema.table`, lower case. */
export const relationOf = (target: { readonly schema: string; readonly table: string }): string => `${target.schema}.${target.table}`.toLowerCase()

/** A compiled model as policy sees it: the one mapping from the compiled project to model attributes. */
export const attributesOf = (m: CompiledModelFacts): ModelAttributes => ({
  name: m.name,
  tags: m.definition.sidecar.tags,
  classifications: [...new Set(Object.values(m.definition.sidecar.classification))],
  contracted: m.contracted,
  layer: m.layer,
  downstreams: m.downstreams,
  reachableDownstreams: m.reachableDownstreams
})

/**
 * Only the facts of a compiled model, as plain data: what a view-swap plan carries so its apply
 * need not compile (decisions.md 37). `undefined` fields are left out, as JSON leaves them.
 */
export const factsOf = (m: CompiledModelFacts): CompiledModelFacts => ({
  name: m.name,
  definition: { sidecar: { tags: m.definition.sidecar.tags, classification: m.definition.sidecar.classification } },
  contracted: m.contracted,
  layer: m.layer,
  downstreams: m.downstreams,
  reachableDownstreams: m.reachableDownstreams
})

/**
 * What policy scopes read of a model as one build made it (recorded with the build): its tags,
 * each column's classification, and whether a contract was in force.
 */
export interface BuiltAttributes {
  readonly tags: Readonly<Record<string, string>>
  readonly classification: Readonly<Record<string, string>>
  readonly contracted: boolean
  /** The relation the build wrote (`relationOf`): a model renamed onto it is judged as this build too. */
  readonly relation?: string | undefined
}

/** The attributes a compiled model is built under (with its relation when the model names one). */
export const builtAttributesOf = (m: Pick<CompiledModelFacts, "definition" | "contracted" | "target">): BuiltAttributes => ({
  tags: m.definition.sidecar.tags,
  classification: m.definition.sidecar.classification,
  contracted: m.contracted,
  ...(m.target === undefined ? {} : { relation: relationOf(m.target) })
})

/** The model judged as it was built: recorded tags, classifications and contract over today's name and blast radius. */
export const asBuilt = (proposed: ModelAttributes, built: BuiltAttributes): ModelAttributes => ({
  ...proposed,
  tags: built.tags,
  classifications: [...new Set(Object.values(built.classification))],
  contracted: built.contracted,
  layer: Object.prototype.hasOwnProperty.call(built.tags, "layer") ? built.tags["layer"] : undefined
})

/** Normalised attributes as the evaluator and selectors use them. */
export interface EvaluationSubject {
  readonly name: string
  readonly tags: Readonly<Record<string, string>>
  readonly classifications: ReadonlySet<string>
  readonly contracted: boolean
  readonly layer: string | undefined
  readonly reachableDownstreams: number | undefined
}

export const toSubject = (attrs: ModelAttributes): EvaluationSubject => ({
  name: attrs.name,
  tags: attrs.tags,
  classifications: attrs.classifications instanceof Set ? attrs.classifications : new Set(attrs.classifications),
  contracted: attrs.contracted,
  layer: attrs.layer ?? (Object.prototype.hasOwnProperty.call(attrs.tags, "layer") ? attrs.tags["layer"] : undefined),
  reachableDownstreams: attrs.reachableDownstreams
})

export class ModelNotFound extends Data.TaggedError("ModelNotFound")<{ readonly model: string; readonly modelsDir: string }> {
  readonly code = "model-not-found"
  override get message() {
    return `model '${this.model}' not found in ${this.modelsDir}`
  }
}

export class ModelAttributesUnavailable extends Data.TaggedError("ModelAttributesUnavailable")<{
  readonly modelsDir: string
  readonly detail: string
}> {
  readonly code = "model-attributes-unavailable"
  override get message() {
    return `cannot read model attributes from ${this.modelsDir}: ${this.detail}`
  }
}

export interface ModelAttributesSourceService {
  /** Compiles `modelsDir` (as needed) and returns one model's attributes. */
  readonly resolve: (
    model: string,
    modelsDir: string
  ) => Effect.Effect<ModelAttributes, ModelNotFound | ModelAttributesUnavailable>
}

/** Wired by the lead to the compiled project (pipeline engine). */
export class ModelAttributesSource extends Context.Tag("pcli/ModelAttributesSource")<
  ModelAttributesSource,
  ModelAttributesSourceService
>() {}
