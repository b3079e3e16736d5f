import { Schema } from "effect"

export const StateInfoOutput = Schema.Struct({
  command: Schema.Literal("state_info"),
  /** The SQLite file, or for PostgreSQL a label naming the schema: never the URL (a secret). */
  path: Schema.String,
  exists: Schema.Boolean,
  schema_version: Schema.Number,
  ledger_rows: Schema.Number,
  backend: Schema.Literal("sqlite", "postgres"),
  /** The PostgreSQL schema the store lives in; null on SQLite. */
  schema: Schema.NullOr(Schema.String),
  /** The connection's database role and the principal it makes (decisions.md 36); null on SQLite. */
  role: Schema.NullOr(Schema.String),
  role_principal: Schema.NullOr(Schema.Literal("human", "agent", "none", "both"))
})
export type StateInfoOutput = typeof StateInfoOutput.Type

export const StateInitOutput = Schema.Struct({
  command: Schema.Literal("state_init"),
  backend: Schema.Literal("sqlite", "postgres"),
  path: Schema.String,
  schema: Schema.NullOr(Schema.String),
  /** False when the store was there already (init is idempotent). */
  created: Schema.Boolean,
  schema_version: Schema.Number,
  /** The group roles the store's rules are granted to. */
  roles: Schema.Array(Schema.String)
})
export type StateInitOutput = typeof StateInitOutput.Type

export const StateMigrateOutput = Schema.Struct({
  command: Schema.Literal("state_migrate"),
  /** The SQLite file copied. */
  from: Schema.String,
  /** The target's label (schema), never its URL. */
  to: Schema.String,
  schema: Schema.String,
  ledger_rows: Schema.Number,
  tables: Schema.Array(Schema.Struct({ table: Schema.String, rows: Schema.Number })),
  /** The copied chain recomputed on the target. */
  chain_intact: Schema.Boolean,
  head_hash: Schema.String
})
export type StateMigrateOutput = typeof StateMigrateOutput.Type

/** `state init --print --output json`: the script, wrapped. */
export const StateInitScriptOutput = Schema.Struct({
  command: Schema.Literal("state_init_print"),
  schema: Schema.String,
  sql: Schema.String
})
export type StateInitScriptOutput = typeof StateInitScriptOutput.Type
