import type { DiscoverSource, Envelope } from "../../schemas/discover"

/** Connected connectors and their enabled tables (destination names preferred, lowercased, sorted, unique). */
export const sourcesOf = (envelope: Envelope): Array<DiscoverSource> =>
  envelope.connectors
    .filter((c) => c.status.setup_state === "connected")
    .map((c) => {
      const config = envelope.schemas[c.id]
      const names = new Set<string>()
      for (const [, schema] of Object.entries(config?.schemas ?? {})) {
        if (!schema.enabled) continue
        for (const [tableKey, table] of Object.entries(schema.tables)) {
          if (table.enabled) names.add((table.name_in_destination ?? tableKey).toLowerCase())
        }
      }
      return {
        id: c.id,
        name: c.name,
        schema: c.schema,
        service: c.service,
        source_type: "elt" as const,
        paused: c.paused,
        last_sync_at: c.succeeded_at ?? null,
        tables: [...names].sort().map((name) => ({ name }))
      }
    })
