// Loaded only when a `pcli state` command runs: the state store stays off the start-up path.
import { Effect, Option } from "effect"
import { stateInfo } from "../commands/stateInfo"
import { stateInit } from "../commands/stateInit"
import { stateMigrate } from "../commands/stateMigrate"
import * as commandLayer from "../layers/commandLayers"
import { stateInfoText, stateInitText, stateMigrateText } from "../render/text/state"
import { StateInfoOutput, StateInitOutput, StateInitScriptOutput, StateMigrateOutput } from "../schemas/state"
import { type CommonOptions, globalOptions } from "./options"
import { emit, writeStdout } from "./output"

export const runInfo = (opts: CommonOptions) =>
  Effect.flatMap(stateInfo, (out) => emit(opts.output, StateInfoOutput, out, stateInfoText)).pipe(Effect.provide(commandLayer.stateInfo(globalOptions(opts))))

export interface InitOptions extends CommonOptions {
  readonly print: boolean
}

export const runInit = (opts: InitOptions) =>
  Effect.flatMap(stateInit({ print: opts.print }), (out) =>
    out.command === "state_init_print"
      ? // The script goes out as is, for `| psql`; JSON wraps it.
        opts.output === "json" ? emit("json", StateInitScriptOutput, out, () => "") : writeStdout(out.sql)
      : emit(opts.output, StateInitOutput, out, stateInitText)
  ).pipe(Effect.provide(commandLayer.stateInit(globalOptions(opts))))

export interface MigrateOptions extends CommonOptions {
  readonly to: string
}

export const runMigrate = (opts: MigrateOptions) =>
  Effect.flatMap(stateMigrate({ to: opts.to, namespace: Option.getOrUndefined(opts.stateNamespace) }), (out) =>
    emit(opts.output, StateMigrateOutput, out, stateMigrateText)
  ).pipe(Effect.provide(commandLayer.stateMigrate(globalOptions(opts))))

