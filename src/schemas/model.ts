import { Schema } from "effect"
import { doc } from "./doc"

/** A three-part warehouse name. On the embedded warehouse the catalog is informational. */
export const TargetBlock = Schema.Struct({
  catalog: Schema.propertySignature(Schema.String).annotations(doc("Catalog (database) name; informational on the embedded DuckDB", "warehouse")),
  schema: Schema.propertySignature(Schema.String).annotations(
    doc("Schema the table is built in; other models' SQL reads it as `schema.table`", "staging")
  ),
  table: Schema.propertySignature(Schema.String).annotations(doc("Table name, usually the model's name", "stg_orders"))
})
export type TargetBlock = typeof TargetBlock.Type

export const Granularity = Schema.Literal("hour", "day", "month", "year")
export type Granularity = typeof Granularity.Type

const strategyType = <T extends string>(type: T, description: string) =>
  Schema.propertySignature(Schema.Literal(type)).annotations(doc(description, type))

const FullRefresh = Schema.Struct({
  type: strategyType("full_refresh", "Rebuild the whole table from the SELECT on every run (the default)")
})
const Incremental = Schema.Struct({
  type: strategyType("incremental", "Append only the rows whose timestamp is newer than the newest already in the table"),
  timestamp_column: Schema.propertySignature(Schema.String).annotations(
    doc("Column compared with the table's max: rows with `timestamp_column > max(timestamp_column)` are appended", "updated_at")
  )
})
const TimeInterval = Schema.Struct({
  type: strategyType("time_interval", "Rebuild per time partition: `pcli run --from K --to K` (or `pcli backfill`) replaces that range"),
  time_column: Schema.propertySignature(Schema.String).annotations(doc("Column holding each row's partition time", "order_day")),
  granularity: Schema.propertySignature(Granularity).annotations(doc("Partition size: hour, day, month or year", "day")),
  /** Partition key of the first partition; a run without a window rebuilds from it. */
  first_partition: Schema.optional(Schema.String).annotations(
    doc("Key of the first partition; a run without --from/--to rebuilds from it. The SQL may use `@start_date` and `@end_date`", "2024-01-01")
  )
})
const ContentAddressed = Schema.Struct({
  type: strategyType("content_addressed", "Write the result as a Parquet file named by its hash, with a view over it (embedded DuckDB only)"),
  storage_prefix: Schema.propertySignature(Schema.String).annotations(
    doc("Directory for the Parquet files: project-relative or `file:///abs`", "artifacts/raw_orders")
  ),
  partition_columns: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] }).annotations(
    doc("Reserved; must be empty", [])
  )
})

export const StrategyBlock = Schema.Union(FullRefresh, Incremental, TimeInterval, ContentAddressed)
export type StrategyBlock = typeof StrategyBlock.Type

export const SourceRef = Schema.Struct({
  catalog: Schema.optional(Schema.String).annotations(doc("Catalog of the source table", "warehouse")),
  schema: Schema.propertySignature(Schema.String).annotations(doc("Schema of a table no model builds", "raw")),
  table: Schema.propertySignature(Schema.String).annotations(doc("Table name", "events"))
})
export type SourceRef = typeof SourceRef.Type

export const Severity = Schema.Literal("error", "warning")
export type Severity = typeof Severity.Type

const testCommon = {
  severity: Schema.optionalWith(Severity, { default: () => "error" as const }).annotations(
    doc("`error` fails the model (its table is not published); `warning` is reported only", "warning")
  ),
  /** SQL predicate restricting the rows the test looks at. */
  filter: Schema.optional(Schema.String).annotations(doc("SQL predicate: the test looks only at rows matching it", "status <> 'returned'"))
}
const testType = <T extends string>(type: T, description: string) =>
  Schema.propertySignature(Schema.Literal(type)).annotations(doc(description, type))
const testColumn = Schema.propertySignature(Schema.String).annotations(doc("Column the test checks", "customer_id"))

const NotNullTest = Schema.Struct({ type: testType("not_null", "No row has NULL in `column`"), column: testColumn, ...testCommon })
const UniqueTest = Schema.Struct({ type: testType("unique", "No two rows share a value of `column`"), column: testColumn, ...testCommon })
/** Composite uniqueness, as product lowering writes it: `{type="composite", kind="unique", columns=[…]}`. */
const CompositeTest = Schema.Struct({
  type: testType("composite", "A test over several columns"),
  kind: Schema.propertySignature(Schema.Literal("unique")).annotations(doc("`unique`: no two rows share the combination of `columns`", "unique")),
  columns: Schema.propertySignature(Schema.NonEmptyArray(Schema.String)).annotations(
    doc("The columns taken together", ["order_day", "region"])
  ),
  ...testCommon
})
const AcceptedValuesTest = Schema.Struct({
  type: testType("accepted_values", "Every non-NULL value of `column` is one of `values`"),
  column: testColumn,
  values: Schema.propertySignature(Schema.NonEmptyArray(Schema.Union(Schema.String, Schema.Number, Schema.Boolean))).annotations(
    doc("The allowed values", ["north", "south"])
  ),
  ...testCommon
})
const ExpressionTest = Schema.Struct({
  type: testType("expression", "Every row satisfies a SQL predicate"),
  expression: Schema.propertySignature(Schema.String).annotations(doc("SQL predicate over the model's columns", "amount > 0")),
  ...testCommon
})
const RowCountRangeTest = Schema.Struct({
  type: testType("row_count_range", "The table's row count lies in [min, max]"),
  min: Schema.optional(Schema.Int.pipe(Schema.nonNegative())).annotations(doc("Fewest rows allowed", 1)),
  max: Schema.optional(Schema.Int.pipe(Schema.nonNegative())).annotations(doc("Most rows allowed", 1000000)),
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
  max_lag_seconds: Schema.optional(Schema.Int.pipe(Schema.positive())).annotations(
    doc("Most seconds `max(time_column)` may lag the time of the check", 86400)
  ),
  /** The spelling product lowering writes. */
  expected_lag_seconds: Schema.optional(Schema.Int.pipe(Schema.positive())).annotations(
    doc("Same as `max_lag_seconds` (the spelling `pcli product compile` writes)", 86400)
  ),
  time_column: Schema.optional(Schema.String).annotations(doc("Timestamp column whose newest value is checked", "ordered_at")),
  severity: Schema.optional(Severity).annotations(doc("`error` (default) makes a stale table fail `pcli test`; `warning` only reports it", "warning"))
})
export type FreshnessBlock = typeof FreshnessBlock.Type

/** `models/<name>.toml`. */
export const ModelSidecar = Schema.Struct({
  name: Schema.propertySignature(Schema.String).annotations(
    doc("The model's name; must equal the file name (`models/<name>.toml` beside `models/<name>.sql`)", "stg_orders")
  ),
  intent: Schema.optional(Schema.String).annotations(doc("One line on what the model is for", "Orders that count towards revenue")),
  depends_on: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] }).annotations(
    doc("Models to build first that the SQL does not name (tables the SQL reads are found by themselves)", ["raw_orders"])
  ),
  target: Schema.propertySignature(TargetBlock).annotations(
    doc("Where the model is built. Other models' SQL names it `schema.table` (or `catalog.schema.table`)")
  ),
  strategy: Schema.optionalWith(StrategyBlock, { default: () => ({ type: "full_refresh" as const }) }).annotations(
    doc("How the table is (re)built; `full_refresh` when omitted")
  ),
  sources: Schema.optionalWith(Schema.Array(SourceRef), { default: () => [] }).annotations(
    doc("`[[sources]]`: tables the SQL reads that no model builds (else the reference is `unknown-reference`)")
  ),
  tests: Schema.optionalWith(Schema.Array(DataTest), { default: () => [] }).annotations(
    doc("`[[tests]]`: data tests run on the built table before it is published")
  ),
  tags: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.String }), { default: () => ({}) }).annotations(
    doc("`[tags]`: key = value labels; policy scopes read `layer` and other tags", { layer: "staging" })
  ),
  classification: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.String }), {
    default: () => ({})
  }).annotations(doc("`[classification]`: column = class, e.g. `pii`; policy scopes can include or exclude classes", { email: "pii" })),
  freshness: Schema.optional(FreshnessBlock).annotations(
    doc("`[freshness]`: how old the newest row may be; checked after the model builds and by `pcli test`")
  )
})
export type ModelSidecar = typeof ModelSidecar.Type

export const ContractColumn = Schema.Struct({
  name: Schema.propertySignature(Schema.String).annotations(doc("Column the built table must have", "customer_id")),
  type: Schema.propertySignature(Schema.String).annotations(doc("Its warehouse type, as DuckDB names it", "BIGINT")),
  nullable: Schema.propertySignature(Schema.Boolean).annotations(doc("`false`: a NULL in the column fails the build", false))
})
export type ContractColumn = typeof ContractColumn.Type

/** `models/<name>.contract.toml`: its presence makes the model contracted. */
export const ModelContract = Schema.Struct({
  columns: Schema.optionalWith(Schema.Array(ContractColumn), { default: () => [] }).annotations(
    doc("`[[columns]]`: the columns the table promises its readers")
  ),
  rules: Schema.optionalWith(
    Schema.Struct({
      required: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] }).annotations(
        doc("Columns that must exist in the built table", ["customer_id"])
      )
    }),
    { default: () => ({ required: [] }) }
  ).annotations(doc("`[rules]`"))
})
export type ModelContract = typeof ModelContract.Type
