// Loaded only when `pcli history` runs.
import { Effect, Option } from "effect"
import { history } from "../commands/history"
import * as commandLayer from "../layers/commandLayers"
import { historyListText, historyRunText } from "../render/text/history"
import { HistoryListOutput, HistoryRunOutput } from "../schemas/history"
import { type CommonOptions, globalOptions } from "./options"
import { emit } from "./output"

export interface HistoryOptions extends CommonOptions {
  readonly runId: Option.Option<string>
  readonly last: Option.Option<number>
  readonly model: Option.Option<string>
}

export const runHistory = (opts: HistoryOptions) =>
  Effect.gen(function* () {
    const out = yield* history({
      runId: Option.getOrUndefined(opts.runId),
      last: Option.getOrUndefined(opts.last),
      model: Option.getOrUndefined(opts.model)
    })
    return yield* "run" in out
      ? emit(opts.output, HistoryRunOutput, out, historyRunText)
      : emit(opts.output, HistoryListOutput, out, historyListText)
  }).pipe(Effect.provide(commandLayer.history(globalOptions(opts))))
