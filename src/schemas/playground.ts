import { Schema } from "effect"

/** One step of the tour `pcli playground` prints: what it shows and the shell lines that show it. */
export const TourStep = Schema.Struct({
  title: Schema.String,
  commands: Schema.Array(Schema.String)
})
export type TourStep = typeof TourStep.Type

export const PlaygroundOutput = Schema.Struct({
  command: Schema.Literal("playground"),
  dir: Schema.String,
  files: Schema.Array(Schema.String),
  /** The git commit holding the project, so `plan --base HEAD` has a base. */
  commit: Schema.String,
  tour: Schema.Array(TourStep)
})
export type PlaygroundOutput = typeof PlaygroundOutput.Type
