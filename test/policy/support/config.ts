import { Effect, Schema } from "effect"
import { ClassificationsBlock, MaskBlock, PolicyBlock } from "../../../src/schemas/policy"
import { decodeToml } from "../../../src/platform/toml"
import type { ModelAttributes } from "../../../src/services/PolicyEngine/attributes"

/** The three blocks as the lead's project config embeds them. */
export const ConfigSlice = Schema.Struct({
  policy: Schema.optional(PolicyBlock),
  mask: Schema.optional(MaskBlock),
  classifications: Schema.optional(ClassificationsBlock)
})

export const decodeConfig = (text: string) => decodeToml(ConfigSlice, text, "pcli.toml")

/** Decodes a config that is expected to be valid. */
export const loadPolicy = (text: string) => Effect.runSync(decodeConfig(text)).policy!

/** Error message of a config that is expected to be rejected. */
export const rejection = (text: string): string => {
  const result = Effect.runSync(Effect.either(decodeConfig(text)))
  if (result._tag === "Right") throw new Error(`expected a rejection for:\n${text}`)
  return result.left.message
}

export const model = (partial: Partial<ModelAttributes> & { name: string }): ModelAttributes => ({
  tags: {},
  classifications: [],
  contracted: false,
  reachableDownstreams: 0,
  ...partial
})
