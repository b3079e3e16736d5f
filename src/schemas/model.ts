import { Schema } from "effect"

/** A three-part warehouse name. On the embedded warehouse the catalog is informational. */
export const TargetBlock = Schema.Struct({
  catalog: Schema.String,
  schema: Schema.String,
  table: Schema.String
})
export type TargetBlock = typeof TargetBlock.Type

export const Granularity = Schema.Literal("hour", "day", "month", "year")
export type Granularity = typeof Granularity.Type

const FullRefresh = Schema.Struct({ type: Schema.Literal("full_refresh") })
const Incremental = Schema.Struct({ type: Schema.Literal("incremental"), timestamp_column: Schema.String })
const TimeInterval = Schema.Struct({
  type: Schema.Literal("time_interval"),
  time_column: Schema.String,
  granularity: Granularity,
  /** Partition key of the first partition; a run without a window rebuilds from it. */
  first_partition: Schema.optional(Schema.String)
})
const ContentAddressed = Schema.Struct({
  type: Schema.Literal("content_addressed"),
  storage_prefix: Schema.String,
  partition_columns: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] })
})

export const StrategyBlock = Schema.Union(FullRefresh, Incremental, TimeInterval, ContentAddressed)
export type StrategyBlock = typeof StrategyBlock.Type

export const SourceRef = Schema.Struct({
  catalog: Schema.optional(Schema.String),
  schema: Schema.String,
  table: Schema.String
})
export type SourceRef = typeof SourceRef.Type

export const Severity = Schema.Literal("error", "warning")
export type Severity = typeof Severity.Type

const testCommon = {
  severity: Schema.optionalWith(Severity, { default: () => "error" as const }),
  /** SQL predicate restricting the rows the test looks at. */
  filter: Schema.optional(Schema.String)
}

const NotNullTest = Schema.Struct({ type: Schema.Literal("not_null"), column: Schema.String, ...testCommon })
const UniqueTest = Schema.Struct({ type: Schema.Literal("unique"), column: Schema.String, ...testCommon })
/** Composite uniqueness, as product lowering writes it: `{type="composite", kind="unique", columns=[…]}`. */
const CompositeTest = Schema.Struct({
  type: Schema.Literal("composite"),
  kind: Schema.Literal("unique"),
  columns: Schema.NonEmptyArray(Schema.String),
  ...testCommon
})
const AcceptedValuesTest = Schema.Struct({
  type: Schema.Literal("accepted_values"),
  column: Schema.String,
  values: Schema.NonEmptyArray(Schema.Union(Schema.String, Schema.Number, Schema.Boolean)),
  ...testCommon
})
const ExpressionTest = Schema.Struct({ type: Schema.Literal("expression"), expression: Schema.String, ...testCommon })
const RowCountRangeTest = Schema.Struct({
  type: Schema.Literal("row_count_range"),
  min: Schema.optional(Schema.Int.pipe(Schema.nonNegative())),
  max: Schema.optional(Schema.Int.pipe(Schema.nonNegative())),
  ...testCommon
})

export const DataTest = Schema.Union(
  NotNullTest,
  UniqueTest,
  CompositeTest,
  AcceptedValuesTest,
  ExpressionTest,
  RowCountRangeTest
)
export type DataTest = typeof DataTest.Type

export const FreshnessBlock = Schema.Struct({
  max_lag_seconds: Schema.optional(Schema.Int.pipe(Schema.positive())),
  /** The spelling product lowering writes. */
  expected_lag_seconds: Schema.optional(Schema.Int.pipe(Schema.positive())),
  time_column: Schema.optional(Schema.String),
  severity: Schema.optional(Severity)
})
export type FreshnessBlock = typeof FreshnessBlock.Type

/** `models/<name>.toml`. */
export const ModelSidecar = Schema.Struct({
  name: Schema.String,
  intent: Schema.optional(Schema.String),
  depends_on: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] }),
  target: TargetBlock,
  strategy: Schema.optionalWith(StrategyBlock, { default: () => ({ type: "full_refresh" as const }) }),
  sources: Schema.optionalWith(Schema.Array(SourceRef), { default: () => [] }),
  tests: Schema.optionalWith(Schema.Array(DataTest), { default: () => [] }),
  tags: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.String }), { default: () => ({}) }),
  classification: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.String }), {
    default: () => ({})
  }),
  freshness: Schema.optional(FreshnessBlock)
})
export type ModelSidecar = typeof ModelSidecar.Type

export const ContractColumn = Schema.Struct({
  name: Schema.String,
  type: Schema.String,
  nullable: Schema.Boolean
})
export type ContractColumn = typeof ContractColumn.Type

/** `models/<name>.contract.toml`: its presence makes the model contracted. */
export const ModelContract = Schema.Struct({
  columns: Schema.optionalWith(Schema.Array(ContractColumn), { default: () => [] }),
  rules: Schema.optionalWith(
    Schema.Struct({ required: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] }) }),
    { default: () => ({ required: [] }) }
  )
})
export type ModelContract = typeof ModelContract.Type
