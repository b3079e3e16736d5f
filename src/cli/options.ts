import { Options } from "@effect/cli"

/** The flags every command takes, so `pcli <cmd> --output json` works after the command name. */
export const commonOptions = {
  output: Options.choice("output", ["text", "json"]).pipe(
    Options.withDefault("text" as const),
    Options.withDescription("Output format: text (default) or json")
  ),
  principalId: Options.text("principal-id").pipe(
    Options.optional,
    Options.withDescription("Self-asserted principal id recorded on ledger rows ([a-z0-9._-]{1,63})")
  ),
  config: Options.text("config").pipe(Options.optional, Options.withDescription("Path to pcli.toml (default: nearest one)")),
  models: Options.text("models").pipe(
    Options.optional,
    Options.withDescription("Models directory (default: models/ beside pcli.toml, else ./models)")
  ),
  statePath: Options.text("state-path").pipe(Options.optional, Options.withDescription("State store file")),
  stateNamespace: Options.text("state-namespace").pipe(
    Options.optional,
    Options.withDescription("State store namespace: <models>/.pcli-state/<id>.sqlite")
  )
} as const

export { type CommonOptions, globalOptions, type OutputFormat } from "./globalOptions"
