import { Schema } from "effect"
import { FreshnessCheck } from "./freshness"

/** One model as `pcli ls` lists it. */
export const LsModel = Schema.Struct({
  name: Schema.String,
  target: Schema.String,
  strategy: Schema.String,
  layer: Schema.optional(Schema.String),
  tags: Schema.Record({ key: Schema.String, value: Schema.String }),
  contracted: Schema.Boolean,
  /** Columns the contract declares (0 without a contract). */
  contract_columns: Schema.Number,
  tests: Schema.Number,
  depends_on: Schema.Array(Schema.String),
  /** The SQL file, relative to the project root. */
  path: Schema.String
})
export type LsModel = typeof LsModel.Type

/** `pcli ls [--select …]`: the selected models in execution order. */
export const LsOutput = Schema.Struct({
  command: Schema.Literal("ls"),
  models_dir: Schema.String,
  select: Schema.Array(Schema.String),
  count: Schema.Number,
  models: Schema.Array(LsModel)
})
export type LsOutput = typeof LsOutput.Type

/** A model at some distance (edges) from the one asked about. */
export const LineageNode = Schema.Struct({ model: Schema.String, distance: Schema.Number })

/** A column of a model, a source table or a table function. */
export const ColumnRef = Schema.Struct({
  kind: Schema.Literal("model", "source", "function"),
  relation: Schema.String,
  column: Schema.String
})

/** One output column of the model: the columns it reads, and what could not be told. */
export const ColumnLineage = Schema.Struct({
  name: Schema.String,
  reads: Schema.Array(ColumnRef),
  /** Reasons a part of the expression could not be resolved; empty when all of it was. */
  unresolved: Schema.Array(Schema.String)
})

/** A model's column at some distance, in a `--column` trace. */
export const TracedColumn = Schema.Struct({
  kind: Schema.Literal("model", "source", "function"),
  relation: Schema.String,
  column: Schema.String,
  distance: Schema.Number
})

/** A model the trace could not see through, and why. */
export const UnresolvedModel = Schema.Struct({ model: Schema.String, reason: Schema.String })

/** `--column`: where one column comes from and what reads it. */
export const ColumnTrace = Schema.Struct({
  name: Schema.String,
  upstream: Schema.optional(Schema.Array(TracedColumn)),
  downstream: Schema.optional(Schema.Array(TracedColumn)),
  /** Downstream models that read a traced column anywhere (filters, joins, grouping included). */
  read_by: Schema.optional(Schema.Array(LineageNode)),
  unresolved: Schema.Array(UnresolvedModel)
})

/** `pcli lineage <model>`: model-level lineage within `depth`, and the model's column lineage. */
export const ModelLineageOutput = Schema.Struct({
  command: Schema.Literal("lineage"),
  model: Schema.String,
  direction: Schema.Literal("both", "upstream", "downstream"),
  depth: Schema.NullOr(Schema.Number),
  upstream: Schema.optional(Schema.Array(LineageNode)),
  downstream: Schema.optional(Schema.Array(LineageNode)),
  sources: Schema.Array(Schema.String),
  /** The model's output columns; null when they cannot be told (see columns_unresolved). */
  columns: Schema.NullOr(Schema.Array(ColumnLineage)),
  columns_unresolved: Schema.Array(Schema.String),
  column: Schema.optional(ColumnTrace)
})
export type ModelLineageOutput = typeof ModelLineageOutput.Type

/** One data test of `pcli test`. */
export const TestResult = Schema.Struct({
  test: Schema.String,
  severity: Schema.Literal("error", "warning"),
  /** pass; fail (error severity, offending rows); warn (warning severity, offending rows); error (it could not run). */
  status: Schema.Literal("pass", "fail", "warn", "error"),
  failing: Schema.optional(Schema.Number),
  detail: Schema.optional(Schema.String)
})
export type TestResult = typeof TestResult.Type

/** One model's tests against its built relation. */
export const TestedModel = Schema.Struct({
  model: Schema.String,
  relation: Schema.String,
  status: Schema.Literal("pass", "fail", "warn", "error", "not_built"),
  tests: Schema.Array(TestResult)
})
export type TestedModel = typeof TestedModel.Type

/** `pcli test [--select …]`: the selected models' data tests against what is built. */
export const TestOutput = Schema.Struct({
  command: Schema.Literal("test"),
  select: Schema.Array(Schema.String),
  models: Schema.Array(TestedModel),
  tests: Schema.Number,
  passed: Schema.Number,
  failed: Schema.Number,
  warned: Schema.Number,
  errored: Schema.Number,
  /** Models with data tests that are not built. */
  not_built: Schema.Number,
  /** Freshness checks of the selected built models that declare `[freshness]`, as in `run`'s JSON; omitted when none ran. */
  freshness: Schema.optional(Schema.Array(FreshnessCheck)),
  /** Checks at severity `error` that are not fresh (stale, empty or unreadable): each fails `pcli test`. */
  freshness_failed: Schema.Number,
  /** Selected models that declare `[freshness]` but are not built: their freshness is not checked. */
  freshness_not_built: Schema.Array(Schema.String)
})
export type TestOutput = typeof TestOutput.Type
