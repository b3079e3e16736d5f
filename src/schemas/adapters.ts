import { Redacted, Schema } from "effect"

/** A secret read from pcli.toml: redacted from the moment it is decoded. */
export const Secret = Schema.Redacted(Schema.String)

/** `[adapter.<name>.cache]`: the discover cache in front of the connector-sync API. */
export const CacheBackend = Schema.Literal("none", "file", "object_store", "kv", "tiered")
export type CacheBackend = typeof CacheBackend.Type

export const CacheBlock = Schema.Struct({
  backend: Schema.optionalWith(CacheBackend, { default: () => "none" as const }),
  /** Project-relative; the file backend defaults it to `.pcli/elt-state/` (spec decisions.md 5). */
  file_root: Schema.optional(
    Schema.String.pipe(Schema.nonEmptyString({ message: () => "must not be empty (leave it out for the default .pcli/elt-state/)" }))
  ),
  object_store_url: Schema.optional(Schema.String),
  /** May carry a password (`redis://:pw@host`), so it is a secret. */
  kv_url: Schema.optional(Secret),
  kv_ttl_seconds: Schema.optional(Schema.Int.pipe(Schema.positive()))
})
export type CacheBlock = typeof CacheBlock.Type

export const WarehouseAdapter = Schema.Struct({
  type: Schema.Literal("warehouse"),
  host: Schema.String,
  http_path: Schema.String,
  token: Schema.optional(Secret),
  client_id: Schema.optional(Schema.String),
  client_secret: Schema.optional(Secret),
  /** Per-statement time-out before the statement is cancelled. */
  statement_timeout_seconds: Schema.optional(Schema.Int.pipe(Schema.positive()))
})
export type WarehouseAdapter = typeof WarehouseAdapter.Type

export const EltAdapter = Schema.Struct({
  type: Schema.Literal("elt"),
  kind: Schema.optionalWith(Schema.Literal("discovery"), { default: () => "discovery" as const }),
  api_key: Schema.String,
  api_secret: Secret,
  destination_id: Schema.String,
  /** Connector-sync API base URL; the public default applies when omitted (decisions.md 21). */
  base_url: Schema.optional(Schema.String),
  cache: Schema.optional(CacheBlock)
})
export type EltAdapter = typeof EltAdapter.Type

export const EmbeddedAdapter = Schema.Struct({
  type: Schema.Literal("embedded"),
  /** DuckDB file, project-relative; default `.pcli/warehouse.duckdb`. */
  path: Schema.optional(Schema.String),
  /**
   * DuckDB's `memory_limit` (e.g. "4GB"), fixed for the run; beyond it DuckDB spills to `<file>.tmp`.
   * Unset, the cap starts at 32MB and rises as models run out of memory.
   */
  memory_limit: Schema.optional(Schema.String)
})
export type EmbeddedAdapter = typeof EmbeddedAdapter.Type

export const ManualAdapter = Schema.Struct({
  type: Schema.Literal("manual"),
  /** Declared tables, as `schema.table` names. */
  tables: Schema.optional(Schema.Array(Schema.String))
})
export type ManualAdapter = typeof ManualAdapter.Type

export const Adapter = Schema.Union(WarehouseAdapter, EltAdapter, EmbeddedAdapter, ManualAdapter)
export type Adapter = typeof Adapter.Type

/** True when a secret holds a non-empty value. */
export const isSet = (secret: Redacted.Redacted<string> | undefined): secret is Redacted.Redacted<string> =>
  secret !== undefined && Redacted.value(secret).length > 0
