// Loaded only when `pcli state info` runs: the state store stays off the start-up path.
import { Effect } from "effect"
import { stateInfo } from "../commands/stateInfo"
import * as commandLayer from "../layers/commandLayers"
import { stateInfoText } from "../render/text/state"
import { StateInfoOutput } from "../schemas/state"
import { type CommonOptions, globalOptions } from "./options"
import { emit } from "./output"

export const runInfo = (opts: CommonOptions) =>
  Effect.flatMap(stateInfo, (out) => emit(opts.output, StateInfoOutput, out, stateInfoText)).pipe(Effect.provide(commandLayer.stateInfo(globalOptions(opts))))
