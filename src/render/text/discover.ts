import type { DiscoverOutput } from "../../schemas/discover"

/** Text rendering of `pcli discover`: one line per source, then where the envelope came from. */
export const renderDiscoverText = (out: DiscoverOutput): string => {
  const cache =
    out.cache.backend === "none"
      ? "no cache"
      : `cache ${out.cache.backend}: read ${out.cache.read}${out.cache.write === undefined ? "" : `, write ${out.cache.write}`}`
  return [
    `${out.adapter}: destination ${out.destination_id}, ${out.sources.length} source(s), fetched ${out.fetched_at} (${cache})`,
    ...out.sources.map(
      (s) => `  ${s.schema}  ${s.service}  ${s.tables.length} table(s)${s.paused ? "  [paused]" : ""}${s.last_sync_at === null ? "" : `  last sync ${s.last_sync_at}`}`
    ),
    ...(out.emitted_to === undefined ? [] : [`envelope written to ${out.emitted_to}`])
  ].join("\n")
}
