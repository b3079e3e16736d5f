// What every light entry does (policyCheck.ts, policyShow.ts, validate.ts): run its command on the
// light line the bin read (cli/lightLine.ts), over LightCoreLayer, and report a failure as main.ts does.
// One bundle per command, so each loads only its own command's code.
import { Effect, Exit, type Layer } from "effect"
import { LIGHT_LINE_KEY, type LightLine } from "../cli/lightLine"
import { ignoreClosedOutput, reportFailure } from "../cli/report"
import { LightCoreLayer } from "../layers/CoreLayer"
import { describeCause } from "../render/errors"

type LightServices = Layer.Layer.Success<typeof LightCoreLayer>

export const runLightLine = <E>(run: (flags: LightLine["flags"]) => Effect.Effect<unknown, E, LightServices>) => {
  ignoreClosedOutput()
  const line = (globalThis as Record<symbol, unknown>)[LIGHT_LINE_KEY] as LightLine
  // With main.ts, the only place that decides the process's exit code.
  Effect.runPromiseExit(Effect.suspend(() => run(line.flags)).pipe(Effect.provide(LightCoreLayer))).then((exit) => {
    if (Exit.isFailure(exit)) reportFailure(process.argv.slice(2), describeCause(exit.cause))
  })
}
