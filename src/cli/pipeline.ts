import { Args, Command, Options } from "@effect/cli"
import { Effect } from "effect"
import { commonOptions } from "./options"

const impl = Effect.promise(() => import("./pipeline.run"))

const compileCommand = Command.make("compile", commonOptions, (opts) => Effect.flatMap(impl, (m) => m.runCompile(opts))
).pipe(Command.withDescription("Parse every model, resolve dependencies with DuckDB's parser, order and layer them"))

const runCommand = Command.make(
  "run",
  {
    ...commonOptions,
    model: Options.text("model").pipe(Options.repeated, Options.withDescription("Run only these models (repeatable)")),
    from: Options.text("from").pipe(Options.optional, Options.withDescription("Partition window start key (needs --to)")),
    to: Options.text("to").pipe(Options.optional, Options.withDescription("Partition window end key (needs --from)")),
    target: Options.text("target").pipe(
      Options.optional,
      Options.withDescription("Adapter to run on (default: the warehouse adapter, else embedded)")
    )
  },
  (opts) => Effect.flatMap(impl, (m) => m.runRun(opts))
).pipe(
  Command.withDescription(
    "Build every model in layer order on the target. Exit codes: 0 every model succeeded, 1 any model failed or was skipped (partial failure included)"
  )
)

const playgroundCommand = Command.make(
  "playground",
  { ...commonOptions, dir: Args.text({ name: "dir" }).pipe(Args.withDescription("Directory to create (must be empty or absent)")) },
  (opts) => Effect.flatMap(impl, (m) => m.runPlayground(opts))
).pipe(Command.withDescription("Write a small, realistic project (raw → staging → mart) that runs with no credentials"))

export const pipelineCommands = [compileCommand, runCommand, playgroundCommand] as const
