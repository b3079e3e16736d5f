// What every light entry (src/light/<path>.ts) does: read the options of the line the bin read in full
// (argv.ts's ReadLine, handed over at LIGHT_LINE_KEY) as options.ts maps them, run the command's handler
// over LightCoreLayer, and report a failure as main.ts does. One bundle per command, so each loads only its own code.
import { Effect, Exit, type Layer } from "effect"
import type { ReadLine } from "../cli/argv"
import { LIGHT_LINE_KEY } from "../cli/commandLine"
import { ignoreClosedOutput, reportFailure } from "../cli/report"
import { LightCoreLayer } from "../layers/CoreLayer"
import { describeCause } from "../render/errors"
import { LIGHT_COMMANDS, type LightCommand, type LightOptions } from "./options"

type LightServices = Layer.Layer.Success<typeof LightCoreLayer>

export const runLight = <C extends LightCommand, E>(command: C, run: (options: LightOptions<C>) => Effect.Effect<unknown, E, LightServices>) => {
  ignoreClosedOutput()
  const line = (globalThis as Record<symbol, unknown>)[LIGHT_LINE_KEY] as ReadLine
  const options = LIGHT_COMMANDS[command](line) as LightOptions<C>
  // With main.ts, the only place that decides the process's exit code.
  Effect.runPromiseExit(Effect.suspend(() => run(options)).pipe(Effect.provide(LightCoreLayer))).then((exit) => {
    if (Exit.isFailure(exit)) reportFailure(process.argv.slice(2), describeCause(exit.cause))
  })
}
