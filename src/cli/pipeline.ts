import { Args, Command, Options } from "@effect/cli"
import { Effect } from "effect"
import { commonOptions } from "./options"
import { described } from "./help"
import { selectOption } from "./inspect"

const impl = Effect.promise(() => import("./pipeline.run"))

const compileCommand = Command.make("compile", commonOptions, (opts) => Effect.flatMap(impl, (m) => m.runCompile(opts))
).pipe(Command.withDescription(
  described("Parse every model, resolve its dependencies with DuckDB's parser, order and layer them", "pcli compile --output json")
))

const runCommand = Command.make(
  "run",
  {
    ...commonOptions,
    model: Options.text("model").pipe(Options.repeated, Options.withDescription("Run only these models (repeatable)")),
    select: selectOption,
    from: Options.text("from").pipe(Options.optional, Options.withDescription("Partition window start key (needs --to)")),
    to: Options.text("to").pipe(Options.optional, Options.withDescription("Partition window end key (needs --from)")),
    fullRefresh: Options.boolean("full-refresh").pipe(
      Options.withDescription("Rebuild every selected model, even those whose inputs did not change")
    ),
    target: Options.text("target").pipe(
      Options.optional,
      Options.withDescription("Adapter to run on (default: the warehouse adapter, else embedded)")
    ),
    branch: Options.text("branch").pipe(
      Options.optional,
      Options.withDescription("Build this branch: only models that differ from its base; production is untouched")
    )
  },
  (opts) => Effect.flatMap(impl, (m) => m.runRun(opts))
).pipe(
  Command.withDescription(
    described(
      "Build every model (or the --model ones) in layer order; a model whose SQL, sidecar and inputs are as last built is left unchanged",
      "pcli run --model stg_orders --model orders",
      "Exit codes: 0 every model succeeded or was unchanged; 1 any model failed or was skipped (partial failure included), and the report says which; 130 Ctrl-C stopped the run after its in-flight models."
    )
  )
)

const playgroundCommand = Command.make(
  "playground",
  { ...commonOptions, dir: Args.text({ name: "dir" }).pipe(Args.withDescription("Directory to create (must be empty or absent)")) },
  (opts) => Effect.flatMap(impl, (m) => m.runPlayground(opts))
).pipe(Command.withDescription(
  described("Write a small, realistic project (raw → staging → mart) that runs with no credentials", "pcli playground demo")
))

export const pipelineCommands = [compileCommand, runCommand, playgroundCommand] as const
