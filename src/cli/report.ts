import { Effect } from "effect"
import type { DescribedError } from "../render/errors"
import { encodeCliError } from "../render/json"
import { wantsJson } from "./argv"

/** A failed command as the user sees it: one `error[<code>]:` line, the JSON error document when asked for, the exit code. */
export const reportFailure = (args: ReadonlyArray<string>, failure: DescribedError) => {
  process.stderr.write(`error[${failure.code}]: ${failure.message}\n`)
  if (wantsJson(args) && !failure.outputPrinted) process.stdout.write(Effect.runSync(encodeCliError(failure)))
  process.exitCode = failure.exit
}

/** A reader that went away (`pcli --help | head`) ends our output, not the process with a stack trace: later writes are dropped. */
export const ignoreClosedOutput = () => {
  for (const stream of [process.stdout, process.stderr]) stream.on("error", () => undefined)
}
