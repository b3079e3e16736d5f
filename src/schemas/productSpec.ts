// The product spec file (`products/<name>.toml`) as a Schema, for the reference docs and the
// parser's closed key sets; the strict parser (services/Products/spec.ts) stays the decoder, since its
// rejections carry the reference system's codes in a fixed order.
import { Schema } from "effect"
import { doc } from "./doc"

const strings = (description: string, ...example: ReadonlyArray<string>) =>
  Schema.propertySignature(Schema.Array(Schema.String)).annotations(doc(description, example))

export const ProductSpecColumn = Schema.Struct({
  name: Schema.propertySignature(Schema.String).annotations(doc("Column name, a bare identifier", "order_day")),
  type: Schema.propertySignature(Schema.String).annotations(
    doc(
      "A pcli type: Array<…>, Binary, Boolean, Date, Decimal(p,s), Float32, Float64, Int32, Int64, Map<…>, String, Struct, Timestamp, TimestampNtz, Variant (lowered to the warehouse's type in the contract)",
      "Int64"
    )
  ),
  nullable: Schema.propertySignature(Schema.Boolean).annotations(doc("`false` adds a not_null test", false))
})

export const ProductSpecFreshness = Schema.Struct({
  max_lag: Schema.propertySignature(Schema.String).annotations(doc("Most the newest row may lag: a positive integer and s, h or d", "24h")),
  time_column: Schema.propertySignature(Schema.String).annotations(doc("Timestamp column whose newest value is checked", "ordered_at")),
  severity: Schema.optional(Schema.Literal("error", "warning")).annotations(
    doc("`error` (default): a stale product fails `pcli test`; `warning`: reported only", "warning")
  )
})

export const ProductSpecOutput = Schema.Struct({
  model: Schema.optional(Schema.String).annotations(doc("The output model's name (default: the product's name)", "daily_revenue")),
  grain: strings("Columns that identify one row (lowered to a unique or composite unique test)", "order_day"),
  columns: Schema.propertySignature(Schema.NonEmptyArray(ProductSpecColumn)).annotations(
    doc("`[[product.output.columns]]`: the contract; every column is required")
  ),
  checks: Schema.optional(Schema.Array(Schema.String)).annotations(
    doc("SQL predicates every row satisfies (each an expression test)", ["revenue >= 0"])
  ),
  freshness: Schema.optional(ProductSpecFreshness).annotations(
    doc("`[product.output.freshness]`: checked after the model builds and by `pcli test`")
  ),
  classifications: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String })).annotations(
    doc("column = class (e.g. `pii`), lowered to the sidecar's `[classification]`", { email: "pii" })
  )
})

export const ProductSpecSource = Schema.Struct({
  tables: strings("Exact `catalog.schema.table` names the product reads (no globs)", "warehouse.staging.stg_orders")
})

export const ProductSpecTrust = Schema.Struct({
  agent: Schema.propertySignature(Schema.Literal("propose_only")).annotations(
    doc("Agents may only propose changes to the product (the only accepted value)", "propose_only")
  )
})

export const ProductSpecBody = Schema.Struct({
  name: Schema.propertySignature(Schema.String).annotations(doc("Product name: a bare identifier equal to the file name", "daily_revenue")),
  intent: Schema.propertySignature(Schema.String).annotations(doc("What the product is for (not blank)", "Revenue per day for finance")),
  source: Schema.propertySignature(ProductSpecSource).annotations(doc("`[product.source]`")),
  output: Schema.propertySignature(ProductSpecOutput).annotations(doc("`[product.output]`: the model the product lowers to")),
  trust: Schema.propertySignature(ProductSpecTrust).annotations(doc("`[product.trust]`"))
})

/** `products/<name>.toml`. */
export const ProductSpecFile = Schema.Struct({
  spec_version: Schema.optional(Schema.Literal(0)).annotations(doc("Spec format version; only 0", 0 as const)),
  product: Schema.propertySignature(ProductSpecBody).annotations(doc("`[product]`"))
})

/** The keys each table of the spec may hold, in the parser's terms. */
export const productSpecKeys = {
  root: Object.keys(ProductSpecFile.fields),
  product: Object.keys(ProductSpecBody.fields),
  source: Object.keys(ProductSpecSource.fields),
  output: Object.keys(ProductSpecOutput.fields),
  column: Object.keys(ProductSpecColumn.fields),
  freshness: Object.keys(ProductSpecFreshness.fields),
  trust: Object.keys(ProductSpecTrust.fields)
} as const
