import { Schema } from "effect"

/** Every connector-sync response is wrapped as `{code, message?, data?}`. */
export const Wrapper = Schema.Struct({
  code: Schema.String,
  message: Schema.optional(Schema.NullOr(Schema.String)),
  data: Schema.optional(Schema.Unknown)
})

export const DestinationData = Schema.Struct({
  id: Schema.String,
  region: Schema.optional(Schema.NullOr(Schema.String)),
  time_zone: Schema.optional(Schema.NullOr(Schema.String)),
  service: Schema.optional(Schema.NullOr(Schema.String)),
  setup_status: Schema.optional(Schema.NullOr(Schema.String))
})
export type DestinationData = typeof DestinationData.Type

export const ConnectorItem = Schema.Struct({
  id: Schema.String,
  group_id: Schema.String,
  service: Schema.String,
  schema: Schema.String,
  status: Schema.Struct({ setup_state: Schema.String, sync_state: Schema.String }),
  paused: Schema.optional(Schema.NullOr(Schema.Boolean)),
  succeeded_at: Schema.optional(Schema.NullOr(Schema.String)),
  failed_at: Schema.optional(Schema.NullOr(Schema.String)),
  name: Schema.optional(Schema.NullOr(Schema.String)),
  connector_name: Schema.optional(Schema.NullOr(Schema.String))
})
export type ConnectorItem = typeof ConnectorItem.Type

export const ConnectorsPage = Schema.Struct({
  items: Schema.Array(ConnectorItem),
  next_cursor: Schema.optional(Schema.NullOr(Schema.String))
})

const ColumnData = Schema.Struct({
  enabled: Schema.optionalWith(Schema.Boolean, { default: () => true }),
  hashed: Schema.optionalWith(Schema.Boolean, { default: () => false })
})
const TableData = Schema.Struct({
  enabled: Schema.Boolean,
  name_in_destination: Schema.optional(Schema.NullOr(Schema.String)),
  sync_mode: Schema.optional(Schema.NullOr(Schema.String)),
  columns: Schema.optionalWith(Schema.Record({ key: Schema.String, value: ColumnData }), { default: () => ({}) })
})
const SchemaData = Schema.Struct({
  enabled: Schema.Boolean,
  name_in_destination: Schema.optional(Schema.NullOr(Schema.String)),
  tables: Schema.optionalWith(Schema.Record({ key: Schema.String, value: TableData }), { default: () => ({}) })
})
export const SchemasData = Schema.Struct({
  schemas: Schema.optionalWith(Schema.Record({ key: Schema.String, value: SchemaData }), { default: () => ({}) })
})
export type SchemasData = typeof SchemasData.Type
