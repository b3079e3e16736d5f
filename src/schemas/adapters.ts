import { Redacted, Schema } from "effect"
import { doc } from "./doc"

/** A secret read from pcli.toml: redacted from the moment it is decoded. */
export const Secret = Schema.Redacted(Schema.String)

/** `[adapter.<name>.cache]`: the discover cache in front of the connector-sync API. */
export const CacheBackend = Schema.Literal("none", "file", "object_store", "kv", "tiered")
export type CacheBackend = typeof CacheBackend.Type

export const CacheBlock = Schema.Struct({
  backend: Schema.optionalWith(CacheBackend, { default: () => "none" as const }).annotations(
    doc("Where discovery results are cached: none, file, object_store, kv or tiered", "file")
  ),
  /** Project-relative; the file backend defaults it to `.pcli/elt-state/` (spec decisions.md 5). */
  file_root: Schema.optional(
    Schema.String.pipe(Schema.nonEmptyString({ message: () => "must not be empty (leave it out for the default .pcli/elt-state/)" }))
  ).annotations(doc("File backend directory, project-relative (default `.pcli/elt-state/`)", ".pcli/elt-state")),
  object_store_url: Schema.optional(Schema.String).annotations(doc("Object store backend URL", "s3://bucket/elt-cache")),
  /** May carry a password (`redis://:pw@host`), so it is a secret. */
  kv_url: Schema.optional(Secret).annotations(doc("Redis URL for the kv backend (a secret)", "redis://127.0.0.1:6379")),
  kv_ttl_seconds: Schema.optional(Schema.Int.pipe(Schema.positive())).annotations(doc("kv entry lifetime (default 600)", 600))
})
export type CacheBlock = typeof CacheBlock.Type

export const WarehouseAdapter = Schema.Struct({
  type: Schema.propertySignature(Schema.Literal("warehouse")).annotations(doc("A remote SQL warehouse; models run there when present", "warehouse")),
  host: Schema.propertySignature(Schema.String).annotations(doc("Warehouse host", "dbc-1234.cloud.example.com")),
  http_path: Schema.propertySignature(Schema.String).annotations(doc("SQL endpoint path", "/sql/1.0/warehouses/abc")),
  token: Schema.optional(Secret).annotations(doc("Personal access token (else `WAREHOUSE_TOKEN`); never printed", "${WAREHOUSE_TOKEN}")),
  client_id: Schema.optional(Schema.String).annotations(doc("OAuth client id (else `WAREHOUSE_CLIENT_ID`)", "pcli-ci")),
  client_secret: Schema.optional(Secret).annotations(doc("OAuth client secret (else `WAREHOUSE_CLIENT_SECRET`)", "${WAREHOUSE_CLIENT_SECRET}")),
  /** Per-statement time-out before the statement is cancelled. */
  statement_timeout_seconds: Schema.optional(Schema.Int.pipe(Schema.positive())).annotations(
    doc("Seconds before a statement is cancelled", 600)
  )
})
export type WarehouseAdapter = typeof WarehouseAdapter.Type

export const EltAdapter = Schema.Struct({
  type: Schema.propertySignature(Schema.Literal("elt")).annotations(doc("A connector-sync service read by `pcli discover`", "elt")),
  kind: Schema.optionalWith(Schema.Literal("discovery"), { default: () => "discovery" as const }).annotations(doc("Always `discovery`", "discovery")),
  api_key: Schema.propertySignature(Schema.String).annotations(doc("API key", "${ELT_API_KEY}")),
  api_secret: Schema.propertySignature(Secret).annotations(doc("API secret (never printed)", "${ELT_API_SECRET}")),
  destination_id: Schema.propertySignature(Schema.String).annotations(doc("Destination whose connectors are discovered", "dest_1")),
  /** Connector-sync API base URL; the public default applies when omitted (decisions.md 21). */
  base_url: Schema.optional(Schema.String).annotations(
    doc("Connector-sync API base URL; the public API when omitted. Point it at a test server or proxy", "http://127.0.0.1:8080")
  ),
  cache: Schema.optional(CacheBlock).annotations(doc("`[adapter.<name>.cache]`: the discover cache"))
})
export type EltAdapter = typeof EltAdapter.Type

export const EmbeddedAdapter = Schema.Struct({
  type: Schema.propertySignature(Schema.Literal("embedded")).annotations(doc("The in-process DuckDB (the default target)", "embedded")),
  /** DuckDB file, project-relative; default `.pcli/warehouse.duckdb`. */
  path: Schema.optional(Schema.String).annotations(doc("DuckDB file, project-relative", ".pcli/warehouse.duckdb")),
  /**
   * DuckDB's `memory_limit` (e.g. "4GB"), fixed for the run; beyond it DuckDB spills to `<file>.tmp`.
   * Unset, the cap starts at 32MB and rises as models run out of memory.
   */
  memory_limit: Schema.optional(Schema.String).annotations(doc("DuckDB memory_limit; unset, it starts at 32MB and rises as needed", "4GB"))
})
export type EmbeddedAdapter = typeof EmbeddedAdapter.Type

export const ManualAdapter = Schema.Struct({
  type: Schema.propertySignature(Schema.Literal("manual")).annotations(doc("Tables loaded by hand, declared for discovery", "manual")),
  /** Declared tables, as `schema.table` names. */
  tables: Schema.optional(Schema.Array(Schema.String)).annotations(doc("Declared tables, as `schema.table`", ["raw.events"]))
})
export type ManualAdapter = typeof ManualAdapter.Type

export const Adapter = Schema.Union(WarehouseAdapter, EltAdapter, EmbeddedAdapter, ManualAdapter)
export type Adapter = typeof Adapter.Type

/** True when a secret holds a non-empty value. */
export const isSet = (secret: Redacted.Redacted<string> | undefined): secret is Redacted.Redacted<string> =>
  secret !== undefined && Redacted.value(secret).length > 0
