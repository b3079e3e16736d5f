// The options a light line (lightLine.ts) gives its command's handler, as @effect/cli's parser gives them.
import { Option } from "effect"
import type { CommonOptions } from "./globalOptions"
import type { LightLine } from "./lightLine"
import type { CheckOptions } from "./policyRead.run"

export const commonOf = (flags: LightLine["flags"]): CommonOptions => ({
  output: flags["--output"] === "json" ? "json" : "text",
  principalId: Option.fromNullable(flags["--principal-id"]),
  config: Option.fromNullable(flags["--config"]),
  models: Option.fromNullable(flags["--models"]),
  statePath: Option.fromNullable(flags["--state-path"]),
  stateNamespace: Option.fromNullable(flags["--state-namespace"])
})

export const checkOf = (flags: LightLine["flags"]): CheckOptions => ({
  ...commonOf(flags),
  principal: flags["--principal"] ?? "",
  capability: flags["--capability"] ?? "",
  model: flags["--model"] ?? ""
})

/** What the handler gets: checked against @effect/cli's parse in test/cli/lightLine.property.test.ts. */
export const lightOptions = (line: LightLine): CommonOptions | CheckOptions => (line.command === "policy check" ? checkOf(line.flags) : commonOf(line.flags))
