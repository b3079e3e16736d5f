import { Schema } from "effect"
import { ChangeClass, ChangeFinding } from "./plans"

/** One model as `list_models` shows it: what an agent needs to pick a model to read or change. */
export const ListedModel = Schema.Struct({
  name: Schema.String,
  target: Schema.String,
  layer: Schema.optional(Schema.String),
  depth: Schema.Number,
  contracted: Schema.Boolean,
  tags: Schema.Record({ key: Schema.String, value: Schema.String }),
  classifications: Schema.Array(Schema.String),
  depends_on: Schema.Array(Schema.String),
  downstreams: Schema.Number
})

/** MCP `list_models`: every compiled model in execution order. */
export const ListModelsOutput = Schema.Struct({
  command: Schema.Literal("list_models"),
  models_dir: Schema.String,
  count: Schema.Number,
  models: Schema.Array(ListedModel)
})
export type ListModelsOutput = typeof ListModelsOutput.Type

/** MCP `lineage`: a model's direct and transitive upstream and downstream (closures in execution order). */
export const LineageOutput = Schema.Struct({
  command: Schema.Literal("lineage"),
  model: Schema.String,
  upstream: Schema.Array(Schema.String),
  downstream: Schema.Array(Schema.String),
  upstream_closure: Schema.Array(Schema.String),
  downstream_closure: Schema.Array(Schema.String),
  sources: Schema.Array(Schema.String)
})
export type LineageOutput = typeof LineageOutput.Type

/** MCP `dependents`: what a change to the model rebuilds (its blast radius). */
export const DependentsOutput = Schema.Struct({
  command: Schema.Literal("dependents"),
  model: Schema.String,
  direct: Schema.Array(Schema.String),
  transitive: Schema.Array(Schema.String),
  count: Schema.Number
})
export type DependentsOutput = typeof DependentsOutput.Type

/** MCP `breaking_change`: the working-tree model against a git base ref, classified as `pcli plan` does. */
export const BreakingChangeOutput = Schema.Struct({
  command: Schema.Literal("breaking_change"),
  model: Schema.String,
  base: Schema.Struct({ ref: Schema.String, commit: Schema.String }),
  changed: Schema.Boolean,
  change_class: Schema.NullOr(ChangeClass),
  breaking: Schema.Boolean,
  findings: Schema.Array(ChangeFinding),
  downstream_closure: Schema.Array(Schema.String)
})
export type BreakingChangeOutput = typeof BreakingChangeOutput.Type

/** `pcli show <model>`: one model as its files define it: SQL, tags, tests, contract, neighbours. */
export const ModelShowOutput = Schema.Struct({
  command: Schema.Literal("show"),
  name: Schema.String,
  target: Schema.String,
  strategy: Schema.String,
  layer: Schema.optional(Schema.String),
  intent: Schema.optional(Schema.String),
  sql_path: Schema.String,
  sql: Schema.String,
  tags: Schema.Record({ key: Schema.String, value: Schema.String }),
  classification: Schema.Record({ key: Schema.String, value: Schema.String }),
  tests: Schema.Array(Schema.Unknown),
  contracted: Schema.Boolean,
  contract: Schema.NullOr(Schema.Struct({ columns: Schema.Array(Schema.Struct({ name: Schema.String, type: Schema.String, nullable: Schema.Boolean })), required: Schema.Array(Schema.String) })),
  depends_on: Schema.Array(Schema.String),
  downstreams: Schema.Int
}).annotations({ identifier: "ModelShowOutput" })
export type ModelShowOutput = typeof ModelShowOutput.Type
