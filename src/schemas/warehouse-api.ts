import { Schema } from "effect"

/** Body of `POST https://<host>/oidc/v1/token`; all three fields are required. */
export const TokenResponse = Schema.Struct({
  access_token: Schema.Redacted(Schema.String),
  token_type: Schema.String,
  expires_in: Schema.Number.pipe(Schema.nonNegative())
})
export type TokenResponse = typeof TokenResponse.Type

/** Body of any non-2xx API answer; every field is optional on the wire. */
export const ApiErrorBody = Schema.Struct({
  error_code: Schema.optional(Schema.String),
  message: Schema.optional(Schema.String)
})

export const StatementState = Schema.Literal("PENDING", "RUNNING", "SUCCEEDED", "FAILED", "CANCELED", "CLOSED")
export type StatementState = typeof StatementState.Type

export const isTerminalState = (state: StatementState): boolean =>
  state === "SUCCEEDED" || state === "FAILED" || state === "CANCELED" || state === "CLOSED"

export const StatementStatus = Schema.Struct({
  state: StatementState,
  error: Schema.optional(
    Schema.Struct({
      error_code: Schema.optional(Schema.String),
      message: Schema.optional(Schema.String)
    })
  )
})

export const ColumnInfo = Schema.Struct({
  name: Schema.String,
  type_name: Schema.optionalWith(Schema.String, { default: () => "STRING" }),
  position: Schema.optional(Schema.Number)
})
export type ColumnInfo = typeof ColumnInfo.Type

/** JSON_ARRAY rows: every cell is a string or null, whatever the column type. */
export const DataArray = Schema.Array(Schema.Array(Schema.NullOr(Schema.String)))

/** One page of an INLINE result; the first comes with the statement, the rest from `/result/chunks/{i}`. */
export const ResultChunk = Schema.Struct({
  chunk_index: Schema.optionalWith(Schema.Number, { default: () => 0 }),
  row_count: Schema.optional(Schema.Number),
  data_array: Schema.optionalWith(DataArray, { default: () => [] }),
  next_chunk_index: Schema.optional(Schema.Number)
})
export type ResultChunk = typeof ResultChunk.Type

export const Manifest = Schema.Struct({
  schema: Schema.optional(Schema.Struct({ columns: Schema.optionalWith(Schema.Array(ColumnInfo), { default: () => [] }) })),
  total_chunk_count: Schema.optional(Schema.Number),
  total_row_count: Schema.optional(Schema.Number)
})

/** Body of `POST /api/2.0/sql/statements` and `GET /api/2.0/sql/statements/{id}`. */
export const StatementResponse = Schema.Struct({
  statement_id: Schema.String,
  status: StatementStatus,
  manifest: Schema.optional(Manifest),
  result: Schema.optional(ResultChunk)
})
export type StatementResponse = typeof StatementResponse.Type

/** `GET /api/2.1/unity-catalog/tables/{full_name}` (the fields pcli reads). */
export const TableInfo = Schema.Struct({
  name: Schema.String,
  catalog_name: Schema.String,
  schema_name: Schema.String,
  full_name: Schema.optional(Schema.String),
  table_type: Schema.optional(Schema.String)
})
export type TableInfo = typeof TableInfo.Type

export const TableList = Schema.Struct({
  tables: Schema.optionalWith(Schema.Array(TableInfo), { default: () => [] }),
  next_page_token: Schema.optional(Schema.String)
})

export const BindingType = Schema.Literal("BINDING_TYPE_READ_WRITE", "BINDING_TYPE_READ_ONLY")
export type BindingType = typeof BindingType.Type

export const WorkspaceBinding = Schema.Struct({
  workspace_id: Schema.Number,
  binding_type: Schema.optionalWith(BindingType, { default: () => "BINDING_TYPE_READ_WRITE" as const })
})
export type WorkspaceBinding = typeof WorkspaceBinding.Type

/** `GET|PATCH /api/2.1/unity-catalog/bindings/catalog/{catalog}`. */
export const Bindings = Schema.Struct({
  bindings: Schema.optionalWith(Schema.Array(WorkspaceBinding), { default: () => [] })
})

/** `PATCH /api/2.1/unity-catalog/catalogs/{catalog}` answer (the field pcli reads). */
export const CatalogInfo = Schema.Struct({
  name: Schema.String,
  isolation_mode: Schema.optional(Schema.String)
})
export type CatalogInfo = typeof CatalogInfo.Type
