import type {
  ConnectorSchemas,
  Envelope,
  EnvelopeConnector,
  EnvelopeDestination,
  SchemaConfig,
  TableConfig
} from "../../schemas/discover"
import type { ConnectorItem, DestinationData, SchemasData } from "./responses"

/** RFC 3339 UTC with `Z`; fraction digits only when non-zero (so equal instants serialize equally). */
export const formatTimestamp = (millis: number): string => new Date(millis).toISOString().replace(".000Z", "Z")

/** Re-emits a parseable timestamp in the canonical form; leaves an unparseable one as given. */
export const normalizeTimestamp = (text: string): string => {
  const millis = Date.parse(text)
  return Number.isNaN(millis) ? text : formatTimestamp(millis)
}

const sortedEntries = <V>(record: Readonly<Record<string, V>>): Array<[string, V]> =>
  Object.keys(record)
    .sort()
    .map((key) => [key, record[key] as V])

const mapSorted = <V, W>(record: Readonly<Record<string, V>>, f: (v: V) => W): Record<string, W> =>
  Object.fromEntries(sortedEntries(record).map(([k, v]) => [k, f(v)]))

const opt = <K extends string>(key: K, value: string | null | undefined): { [P in K]?: string } =>
  (value === undefined || value === null ? {} : { [key]: value }) as { [P in K]?: string }

export const toDestination = (d: DestinationData): EnvelopeDestination => ({
  id: d.id,
  ...opt("region", d.region),
  ...opt("time_zone", d.time_zone),
  ...opt("service", d.service),
  ...opt("setup_status", d.setup_status)
})

export const toConnector = (c: ConnectorItem): EnvelopeConnector => ({
  id: c.id,
  name: c.name ?? c.connector_name ?? c.schema,
  schema: c.schema,
  service: c.service,
  status: { setup_state: c.status.setup_state, sync_state: c.status.sync_state },
  paused: c.paused ?? false,
  ...opt("succeeded_at", c.succeeded_at == null ? undefined : normalizeTimestamp(c.succeeded_at)),
  ...opt("failed_at", c.failed_at == null ? undefined : normalizeTimestamp(c.failed_at)),
  ...opt("group_id", c.group_id)
})

const toTable = (t: SchemasData["schemas"][string]["tables"][string]): TableConfig => ({
  enabled: t.enabled,
  ...opt("name_in_destination", t.name_in_destination),
  ...opt("sync_mode", t.sync_mode),
  columns: mapSorted(t.columns, (c) => ({ enabled: c.enabled, hashed: c.hashed }))
})

export const toConnectorSchemas = (s: SchemasData): ConnectorSchemas => ({
  schemas: mapSorted(s.schemas, (sc) => ({
    enabled: sc.enabled,
    ...opt("name_in_destination", sc.name_in_destination),
    tables: mapSorted(sc.tables, toTable)
  }))
})

/** Rebuilds an envelope with the fixed key order and sorted maps (cache reads may come from any writer). */
export const normalizeEnvelope = (e: Envelope): Envelope => ({
  version: e.version,
  fetched_at: normalizeTimestamp(e.fetched_at),
  destination: toDestination(e.destination),
  connectors: [...e.connectors]
    .map((c) => ({
      id: c.id,
      name: c.name,
      schema: c.schema,
      service: c.service,
      status: { setup_state: c.status.setup_state, sync_state: c.status.sync_state },
      paused: c.paused,
      ...opt("succeeded_at", c.succeeded_at === undefined ? undefined : normalizeTimestamp(c.succeeded_at)),
      ...opt("failed_at", c.failed_at === undefined ? undefined : normalizeTimestamp(c.failed_at)),
      ...opt("group_id", c.group_id)
    }))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)),
  schemas: mapSorted(e.schemas, (cs) => ({
    schemas: mapSorted(cs.schemas, (sc: SchemaConfig) => ({
      enabled: sc.enabled,
      ...opt("name_in_destination", sc.name_in_destination),
      tables: mapSorted(sc.tables, (t: TableConfig) => ({
        enabled: t.enabled,
        ...opt("name_in_destination", t.name_in_destination),
        ...opt("sync_mode", t.sync_mode),
        columns: mapSorted(t.columns, (c) => ({ enabled: c.enabled, hashed: c.hashed }))
      }))
    }))
  }))
})

export const buildEnvelope = (
  fetchedAtMillis: number,
  destination: DestinationData,
  connectors: ReadonlyArray<ConnectorItem>,
  schemas: ReadonlyArray<readonly [string, SchemasData]>
): Envelope =>
  normalizeEnvelope({
    version: "1.0",
    fetched_at: formatTimestamp(fetchedAtMillis),
    destination: toDestination(destination),
    connectors: connectors.map(toConnector),
    schemas: Object.fromEntries(schemas.map(([id, s]) => [id, toConnectorSchemas(s)]))
  })
