import { Command } from "@effect/cli"
import { Cause, Effect, Exit, Option } from "effect"
import { type CommandLine, readCommandLine } from "./cli/argv"
import { COMMAND_LINE_KEY } from "./cli/commandLine"
import type { CommandNode } from "./cli/commandTree"
import { renderHelp } from "./cli/help"
import { rootCommand, rootTree } from "./cli/root"
import { describeUsage, invalidFlagValue, isUsageFailure, usageFromMessage } from "./cli/usage"
import { AppLayer } from "./layers/AppLayer"
import { type DescribedError, describeCause } from "./render/errors"
import { ignoreClosedOutput, reportFailure } from "./cli/report"

declare const PCLI_VERSION: string
const version = typeof PCLI_VERSION === "string" ? PCLI_VERSION : "dev"

ignoreClosedOutput()

const args = process.argv.slice(2)

const report = (failure: DescribedError) => reportFailure(args, failure)

const cli = Command.run(rootCommand, { name: "pcli", version })

// The bin (dispatch.ts) has usually read the line already, from the build-time manifest of this tree.
const handedOver = (globalThis as Record<symbol, unknown>)[COMMAND_LINE_KEY] as CommandLine<never> | undefined
const root = handedOver === undefined ? rootTree() : undefined
const line: CommandLine<CommandNode> = handedOver ?? readCommandLine(root ?? rootTree(), args)

if (line._tag === "Help") {
  process.stdout.write(renderHelp(root ?? rootTree(), line.node, version))
} else if (line._tag === "Invalid") {
  // A malformed flag value is a bad value (exit 1, its own code); anything else on the line is usage (exit 2).
  report(line.valueCode === undefined ? usageFromMessage(line.message) : invalidFlagValue(line.valueCode, line.message))
} else {
  const program = Effect.suspend(() => cli([...process.argv.slice(0, 2), ...line.argv])).pipe(Effect.provide(AppLayer))
  // The only place that decides the process's exit code: from the error table (render/errors.ts).
  Effect.runPromiseExit(program).then((exit) => {
    if (Exit.isSuccess(exit)) return
    report(
      Option.match(Cause.failureOption(exit.cause), {
        onNone: () => describeCause(exit.cause),
        onSome: (e) => (isUsageFailure(e) ? describeUsage(e) : describeCause(exit.cause))
      })
    )
  })
}
