import { Schema } from "effect"
import { doc } from "./doc"
import type { Adapter } from "./adapters"
import { ClassificationsBlock, MaskBlock, PolicyBlock } from "./policy"

/** `[state]`: where the state store lives and, optionally, its object tier. */
export const StateBlock = Schema.Struct({
  namespace: Schema.optional(Schema.String).annotations(
    doc("State store namespace: the store becomes `<models>/.pcli-state/<namespace>.sqlite` instead of `<models>/.pcli-state.sqlite`", "team-a")
  ),
  /** Team state (decision 36): a `postgres://` URL, usually `${VAR}`; a secret, never printed. */
  url: Schema.optional(Schema.String).annotations(
    doc("Team state: a `postgres://` URL (usually `${VAR}`); a secret, never printed", "${PCLI_STATE_URL}")
  ),
  /** Object tier (durable freeze markers): `s3://`, `gs://`, `az://` or `file:///`. */
  object_store_url: Schema.optional(Schema.String).annotations(
    doc("Object tier for durable freeze markers: `s3://`, `gs://`, `az://` or `file:///`", "s3://my-bucket/pcli")
  )
})
export type StateBlock = typeof StateBlock.Type

/** `[gc]`: reclamation settings. `physical_delete = true` is refused where gc runs. */
export const GcBlock = Schema.Struct({
  physical_delete: Schema.optional(Schema.Boolean).annotations(doc("Refused when true: gc only evicts artifacts, it never deletes their files (environment tables are dropped: see keep_promotions)", false)),
  min_age_days: Schema.optional(Schema.Int.pipe(Schema.nonNegative())).annotations(doc("Artifacts younger than this are never evicted", 7)),
  keep_promotions: Schema.optional(Schema.Int.pipe(Schema.greaterThanOrEqualTo(1))).annotations(
    doc("How many of the latest promotions (promote or rollback) keep every table they swapped from or to, so `pcli rollback` never finds its tables gone (default 2)", 2)
  )
})

export const ProjectBlock = Schema.Struct({
  name: Schema.optional(Schema.String).annotations(doc("Project name (informational)", "shop"))
})

/**
 * pcli.toml as decoded in one pass. Adapter blocks are decoded one by one by their `type`
 * (see ProjectConfig), so here they are left as plain tables.
 */
export const ProjectConfigFile = Schema.Struct({
  project: Schema.optional(ProjectBlock).annotations(doc("`[project]`")),
  adapter: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })).annotations(
    doc("`[adapter.<name>]`: one table per adapter, by `type` (see Adapters below). With no `warehouse` adapter, models run on the embedded DuckDB")
  ),
  policy: Schema.optional(PolicyBlock).annotations(doc("`[policy]`: who may change what (see policy.md)")),
  mask: Schema.optional(MaskBlock).annotations(
    doc("`[mask]`: classification tag = masking strategy (`hash`, `redact`, `partial`, `none`), with `[mask.<env>]` overrides", { pii: "hash" })
  ),
  classifications: Schema.optional(ClassificationsBlock).annotations(doc("`[classifications]`")),
  state: Schema.optional(StateBlock).annotations(doc("`[state]`: where the state store lives (default `<models>/.pcli-state.sqlite`)")),
  gc: Schema.optional(GcBlock).annotations(doc("`[gc]`: reclamation of artifacts and environment tables"))
})

export type ProjectConfigData = Omit<typeof ProjectConfigFile.Type, "adapter"> & {
  readonly adapter: Readonly<Record<string, Adapter>>
}
