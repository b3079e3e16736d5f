import { Schema } from "effect"

export const PlaygroundOutput = Schema.Struct({
  command: Schema.Literal("playground"),
  dir: Schema.String,
  files: Schema.Array(Schema.String)
})
export type PlaygroundOutput = typeof PlaygroundOutput.Type
