// The light entry: what the bin runs for a light command line (cli/lightLine.ts: policy check, policy
// show, validate) instead of the full bundle (main.ts). No @effect/cli and no other command is in it,
// so there is far less to load; the command, its output, errors and exit code are the same.
import { Effect, Exit } from "effect"
import { runLight } from "./cli/light.run"
import { LIGHT_LINE_KEY, type LightLine } from "./cli/lightLine"
import { ignoreClosedOutput, reportFailure } from "./cli/report"
import { CoreLayer } from "./layers/CoreLayer"
import { describeCause } from "./render/errors"

ignoreClosedOutput()

const line = (globalThis as Record<symbol, unknown>)[LIGHT_LINE_KEY] as LightLine

// As in main.ts: the only place (with main.ts) that decides the process's exit code.
Effect.runPromiseExit(Effect.suspend(() => runLight(line)).pipe(Effect.provide(CoreLayer))).then((exit) => {
  if (Exit.isFailure(exit)) reportFailure(process.argv.slice(2), describeCause(exit.cause))
})
