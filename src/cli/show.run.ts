// Loaded only when `pcli show` runs.
import { Effect } from "effect"
import { modelShow } from "../commands/modelShow"
import * as commandLayer from "../layers/commandLayers"
import { modelShowText } from "../render/text/models"
import { ModelShowOutput } from "../schemas/lineage"
import { type CommonOptions, globalOptions } from "./options"
import { emit } from "./output"

export interface ShowOptions extends CommonOptions {
  readonly model: string
}

export const runShow = (opts: ShowOptions) =>
  Effect.flatMap(modelShow(opts.model), (out) => emit(opts.output, ModelShowOutput, out, modelShowText)).pipe(Effect.provide(commandLayer.show(globalOptions(opts))))
