import { Command } from "@effect/cli"
import { Effect } from "effect"
import { stateInfo } from "../commands/stateInfo"
import { StateReadLayer } from "../layers/ProjectLayer"
import { stateInfoText } from "../render/text/state"
import { StateInfoOutput } from "../schemas/state"
import { commonOptions, globalOptions } from "./options"
import { emit } from "./output"

const infoCommand = Command.make("info", commonOptions, (opts) =>
  Effect.flatMap(stateInfo, (out) => emit(opts.output, StateInfoOutput, out, stateInfoText)).pipe(
    Effect.provide(StateReadLayer(globalOptions(opts)))
  )
).pipe(Command.withDescription("Read-only: where the state store is, its schema version, its size"))

export const stateCommand = Command.make("state").pipe(
  Command.withDescription("Inspect the state store"),
  Command.withSubcommands([infoCommand])
)
