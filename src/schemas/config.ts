import { Schema } from "effect"
import type { Adapter } from "./adapters"
import { ClassificationsBlock, MaskBlock, PolicyBlock } from "./policy"

/** `[state]`: where the state store lives and, optionally, its object tier. */
export const StateBlock = Schema.Struct({
  namespace: Schema.optional(Schema.String),
  /** Team state (decision 36): a `postgres://` URL, usually `${VAR}`; a secret, never printed. */
  url: Schema.optional(Schema.String),
  /** Object tier (durable freeze markers): `s3://`, `gs://`, `az://` or `file:///`. */
  object_store_url: Schema.optional(Schema.String)
})
export type StateBlock = typeof StateBlock.Type

/** `[gc]`: reclamation settings. `physical_delete = true` is refused where gc runs. */
export const GcBlock = Schema.Struct({
  physical_delete: Schema.optional(Schema.Boolean),
  min_age_days: Schema.optional(Schema.Int.pipe(Schema.nonNegative()))
})

export const ProjectBlock = Schema.Struct({
  name: Schema.optional(Schema.String)
})

/**
 * pcli.toml as decoded in one pass. Adapter blocks are decoded one by one by their `type`
 * (see ProjectConfig), so here they are left as plain tables.
 */
export const ProjectConfigFile = Schema.Struct({
  project: Schema.optional(ProjectBlock),
  adapter: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  policy: Schema.optional(PolicyBlock),
  mask: Schema.optional(MaskBlock),
  classifications: Schema.optional(ClassificationsBlock),
  state: Schema.optional(StateBlock),
  gc: Schema.optional(GcBlock)
})

export type ProjectConfigData = Omit<typeof ProjectConfigFile.Type, "adapter"> & {
  readonly adapter: Readonly<Record<string, Adapter>>
}
