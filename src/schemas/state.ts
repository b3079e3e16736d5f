import { Schema } from "effect"

export const StateInfoOutput = Schema.Struct({
  command: Schema.Literal("state_info"),
  path: Schema.String,
  exists: Schema.Boolean,
  schema_version: Schema.Number,
  ledger_rows: Schema.Number
})
export type StateInfoOutput = typeof StateInfoOutput.Type
