import { Command } from "@effect/cli"
import { Effect } from "effect"
import { stateInfo } from "../commands/stateInfo"
import { StateReadLayer } from "../layers/ProjectLayer"
import { stateInfoText } from "../render/text/state"
import { StateInfoOutput } from "../schemas/state"
import { commonOptions, globalOptions } from "./options"
import { emit } from "./output"
import { described } from "./help"

const infoCommand = Command.make("info", commonOptions, (opts) =>
  Effect.flatMap(stateInfo, (out) => emit(opts.output, StateInfoOutput, out, stateInfoText)).pipe(
    Effect.provide(StateReadLayer(globalOptions(opts)))
  )
).pipe(Command.withDescription(
  described("Read-only: where the state store is, its schema version, its size", "pcli state info --state-namespace ci --output json")
))

export const stateCommand = Command.make("state").pipe(
  Command.withDescription(described("Inspect the state store", "pcli state info")),
  Command.withSubcommands([infoCommand])
)
