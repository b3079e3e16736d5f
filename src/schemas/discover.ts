import { Schema } from "effect"
import { CacheBackend } from "./adapters"

/** Fields and key order of the discover envelope (reference b.4); maps are key-sorted when built. */
export const EnvelopeDestination = Schema.Struct({
  id: Schema.String,
  region: Schema.optional(Schema.String),
  time_zone: Schema.optional(Schema.String),
  service: Schema.optional(Schema.String),
  setup_status: Schema.optional(Schema.String)
})
export type EnvelopeDestination = typeof EnvelopeDestination.Type

export const ConnectorStatus = Schema.Struct({
  setup_state: Schema.String,
  sync_state: Schema.String
})

export const EnvelopeConnector = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  schema: Schema.String,
  service: Schema.String,
  status: ConnectorStatus,
  paused: Schema.Boolean,
  succeeded_at: Schema.optional(Schema.String),
  failed_at: Schema.optional(Schema.String),
  group_id: Schema.optional(Schema.String)
})
export type EnvelopeConnector = typeof EnvelopeConnector.Type

export const ColumnConfig = Schema.Struct({ enabled: Schema.Boolean, hashed: Schema.Boolean })

export const TableConfig = Schema.Struct({
  enabled: Schema.Boolean,
  name_in_destination: Schema.optional(Schema.String),
  sync_mode: Schema.optional(Schema.String),
  columns: Schema.Record({ key: Schema.String, value: ColumnConfig })
})
export type TableConfig = typeof TableConfig.Type

export const SchemaConfig = Schema.Struct({
  enabled: Schema.Boolean,
  name_in_destination: Schema.optional(Schema.String),
  tables: Schema.Record({ key: Schema.String, value: TableConfig })
})
export type SchemaConfig = typeof SchemaConfig.Type

export const ConnectorSchemas = Schema.Struct({
  schemas: Schema.Record({ key: Schema.String, value: SchemaConfig })
})
export type ConnectorSchemas = typeof ConnectorSchemas.Type

export const Envelope = Schema.Struct({
  version: Schema.Literal("1.0"),
  fetched_at: Schema.String,
  destination: EnvelopeDestination,
  connectors: Schema.Array(EnvelopeConnector),
  schemas: Schema.Record({ key: Schema.String, value: ConnectorSchemas })
})
export type Envelope = typeof Envelope.Type

/** Envelope decoded from JSON text (cache entries, emitted files). */
export const EnvelopeFromJson = Schema.parseJson(Envelope)

/** What the read-through cache did for this invocation. */
export const CacheOutcome = Schema.Literal("disabled", "hit", "miss", "refresh-forced", "read-failed")
export const CacheWriteOutcome = Schema.Literal("written", "skipped", "failed")

export const DiscoverTable = Schema.Struct({ name: Schema.String })

export const DiscoverSource = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  schema: Schema.String,
  service: Schema.String,
  source_type: Schema.Literal("elt"),
  paused: Schema.Boolean,
  last_sync_at: Schema.NullOr(Schema.String),
  tables: Schema.Array(DiscoverTable)
})
export type DiscoverSource = typeof DiscoverSource.Type

export const DiscoverCacheStatus = Schema.Struct({
  backend: CacheBackend,
  read: CacheOutcome,
  write: Schema.optional(CacheWriteOutcome)
})

/** Output of `pcli discover` for one connector-sync adapter; `command` stays the first field. */
export const DiscoverOutput = Schema.Struct({
  command: Schema.Literal("discover"),
  adapter: Schema.String,
  destination_id: Schema.String,
  account_hash: Schema.String,
  fetched_at: Schema.String,
  cache: DiscoverCacheStatus,
  sources: Schema.Array(DiscoverSource),
  emitted_to: Schema.optional(Schema.String)
})
export type DiscoverOutput = typeof DiscoverOutput.Type

/** The five cache decisions (interface "Events"); `backend`/`key` on all. */
export const CacheHit = Schema.TaggedStruct("elt.cache_hit", {
  backend: CacheBackend,
  key: Schema.String,
  age_seconds: Schema.Int
})
export const CacheMiss = Schema.TaggedStruct("elt.cache_miss", {
  backend: CacheBackend,
  key: Schema.String,
  reason: Schema.Literal("no-entry", "refresh-forced")
})
export const CacheWrite = Schema.TaggedStruct("elt.cache_write", {
  backend: CacheBackend,
  key: Schema.String,
  bytes: Schema.Int,
  outcome: Schema.Literal("written")
})
export const CacheWriteSkipped = Schema.TaggedStruct("elt.cache_write_skipped", {
  backend: CacheBackend,
  key: Schema.String,
  reason: Schema.Literal("hash-match")
})
export const CacheWriteFailed = Schema.TaggedStruct("elt.cache_write_failed", {
  backend: CacheBackend,
  key: Schema.String,
  error: Schema.String
})
export const CacheEvent = Schema.Union(CacheHit, CacheMiss, CacheWrite, CacheWriteSkipped, CacheWriteFailed)
export type CacheEvent = typeof CacheEvent.Type
