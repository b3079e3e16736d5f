import { Command } from "@effect/cli"
import { Effect, Exit } from "effect"
import { rootCommand } from "./cli/root"
import { describeFailure } from "./cli/exit"
import { AppLayer } from "./layers/AppLayer"

declare const PCLI_VERSION: string

const wantsJson = (argv: ReadonlyArray<string>) =>
  argv.some((a, i) => a === "--output=json" || (a === "--output" && argv[i + 1] === "json"))

const cli = Command.run(rootCommand, { name: "pcli", version: typeof PCLI_VERSION === "string" ? PCLI_VERSION : "dev" })

const program = Effect.suspend(() => cli(process.argv)).pipe(Effect.provide(AppLayer))

Effect.runPromiseExit(program).then((exit) => {
  if (Exit.isSuccess(exit)) return
  const failure = describeFailure(exit.cause)
  if (!failure.alreadyReported) process.stderr.write(`error[${failure.code}]: ${failure.message}\n`)
  if (wantsJson(process.argv)) {
    process.stdout.write(`${JSON.stringify({ error: { code: failure.code, message: failure.message } }, null, 2)}\n`)
  }
  process.exitCode = failure.exitCode
})
