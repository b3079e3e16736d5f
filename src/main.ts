import { Command } from "@effect/cli"
import { Cause, Effect, Exit, Option } from "effect"
import { rootCommand } from "./cli/root"
import { describeUsage, isUsageFailure } from "./cli/usage"
import { AppLayer } from "./layers/AppLayer"
import { describeCause } from "./render/errors"
import { encodeCliError } from "./render/json"

declare const PCLI_VERSION: string

const wantsJson = (argv: ReadonlyArray<string>) =>
  argv.some((a, i) => a === "--output=json" || (a === "--output" && argv[i + 1] === "json"))

const cli = Command.run(rootCommand, { name: "pcli", version: typeof PCLI_VERSION === "string" ? PCLI_VERSION : "dev" })

const program = Effect.suspend(() => cli(process.argv)).pipe(Effect.provide(AppLayer))

// The only place that decides the process's exit code: from the error table (render/errors.ts).
Effect.runPromiseExit(program).then((exit) => {
  if (Exit.isSuccess(exit)) return
  const failure = Option.match(Cause.failureOption(exit.cause), {
    onNone: () => describeCause(exit.cause),
    onSome: (e) => (isUsageFailure(e) ? { ...describeUsage(e), alreadyPrinted: true } : describeCause(exit.cause))
  })
  const alreadyPrinted = "alreadyPrinted" in failure
  if (!alreadyPrinted) process.stderr.write(`error[${failure.code}]: ${failure.message}\n`)
  if (wantsJson(process.argv) && !failure.outputPrinted) {
    process.stdout.write(Effect.runSync(encodeCliError(failure)))
  }
  process.exitCode = failure.exit
})
