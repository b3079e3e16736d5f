// The light commands run from a light line (lightLine.ts), with the options @effect/cli would have parsed.
import { type Effect, Option } from "effect"
import type { CommonOptions } from "./globalOptions"
import type { LightLine } from "./lightLine"
import { type CheckOptions, runCheck, runShow } from "./policy.run"
import { runValidate } from "./validate.run"

const commonOf = (flags: LightLine["flags"]): CommonOptions => ({
  output: flags["--output"] === "json" ? "json" : "text",
  principalId: Option.fromNullable(flags["--principal-id"]),
  config: Option.fromNullable(flags["--config"]),
  models: Option.fromNullable(flags["--models"]),
  statePath: Option.fromNullable(flags["--state-path"]),
  stateNamespace: Option.fromNullable(flags["--state-namespace"])
})

const checkOf = (flags: LightLine["flags"]): CheckOptions => ({
  ...commonOf(flags),
  principal: flags["--principal"] ?? "",
  capability: flags["--capability"] ?? "",
  model: flags["--model"] ?? ""
})

/** The options a light line gives its command's handler: what @effect/cli's parser gives it (test/cli/lightLine.property.test.ts). */
export const lightOptions = (line: LightLine): CommonOptions | CheckOptions => (line.command === "policy check" ? checkOf(line.flags) : commonOf(line.flags))

type LightRun = ReturnType<typeof runCheck> | ReturnType<typeof runShow> | ReturnType<typeof runValidate>

/** The command a light line names, run as its @effect/cli handler runs it. */
export const runLight = (line: LightLine): Effect.Effect<Effect.Effect.Success<LightRun>, Effect.Effect.Error<LightRun>, Effect.Effect.Context<LightRun>> => {
  switch (line.command) {
    case "policy check":
      return runCheck(checkOf(line.flags))
    case "policy show":
      return runShow(commonOf(line.flags))
    case "validate":
      return runValidate(commonOf(line.flags))
  }
}
