// The flags every command takes, as plain values. Kept free of @effect/cli so the light
// entries (src/light/) can build them without the option parser.
import { Option } from "effect"
import type { GlobalOptions } from "../layers/ProjectLayer"

export type OutputFormat = "text" | "json"

export interface CommonOptions {
  readonly output: OutputFormat
  readonly principalId: Option.Option<string>
  readonly config: Option.Option<string>
  readonly models: Option.Option<string>
  readonly statePath: Option.Option<string>
  readonly stateNamespace: Option.Option<string>
}

/** The global flags as the layers take them: plain values, paths relative to the working directory. */
export const globalOptions = (common: CommonOptions): GlobalOptions => ({
  cwd: process.cwd(),
  config: Option.getOrUndefined(common.config),
  models: Option.getOrUndefined(common.models),
  statePath: Option.getOrUndefined(common.statePath),
  stateNamespace: Option.getOrUndefined(common.stateNamespace),
  principalId: Option.getOrUndefined(common.principalId)
})
