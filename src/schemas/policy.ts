// Placeholder until the policy plane lands: keeps the three block names the config imports.
import { Schema } from "effect"

export const PolicyBlock = Schema.Record({ key: Schema.String, value: Schema.Unknown })
export const MaskBlock = Schema.Record({ key: Schema.String, value: Schema.Unknown })
export const ClassificationsBlock = Schema.Record({ key: Schema.String, value: Schema.Unknown })
