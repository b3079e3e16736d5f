import { Command } from "@effect/cli"
import { Effect } from "effect"
import { commonOptions } from "./options"
import { described } from "./help"

const impl = Effect.promise(() => import("./state.run"))

const infoCommand = Command.make("info", commonOptions, (opts) => Effect.flatMap(impl, (m) => m.runInfo(opts))).pipe(Command.withDescription(
  described("Read-only: where the state store is, its schema version, its size", "pcli state info --state-namespace ci --output json")
))

export const stateCommand = Command.make("state").pipe(
  Command.withDescription(described("Inspect the state store", "pcli state info")),
  Command.withSubcommands([infoCommand])
)
