import { Args, Command, Options } from "@effect/cli"
import { Effect } from "effect"
import { commonOptions } from "./options"
import { described } from "./help"

const impl = Effect.promise(() => import("./inspect.run"))
const testImpl = Effect.promise(() => import("./test.run"))

/** `--select`, the same on ls, test, run and plan. */
export const selectOption = Options.text("select").pipe(
  Options.repeated,
  Options.withDescription("Models to include, dbt style: name, +name (and upstream), name+ (and downstream), 2+name, @name, tag:key[=value], path:models/stg_*; spaces unite, commas intersect (repeatable)")
)

const lsCommand = Command.make("ls", { ...commonOptions, select: selectOption }, (opts) => Effect.flatMap(impl, (m) => m.runLs(opts))).pipe(
  Command.withDescription(
    described("Read-only: the models in execution order with strategy, target, tags, contract and test counts", "pcli ls --select +mart_customer_ltv")
  )
)

const lineageCommand = Command.make(
  "lineage",
  {
    ...commonOptions,
    model: Args.text({ name: "model" }).pipe(Args.withDescription("The model to show")),
    column: Options.text("column").pipe(Options.optional, Options.withDescription("Trace this output column up and down the project")),
    upstream: Options.boolean("upstream").pipe(Options.withDescription("Only what the model reads")),
    downstream: Options.boolean("downstream").pipe(Options.withDescription("Only what reads the model")),
    depth: Options.text("depth").pipe(Options.optional, Options.withDescription("Edges to follow (a positive integer; default: all)"))
  },
  (opts) => Effect.flatMap(impl, (m) => m.runLineage(opts))
).pipe(
  Command.withDescription(
    described(
      "Read-only: a model's upstream and downstream models, and its column lineage from DuckDB's parsed SQL; what the parser cannot settle is reported as unresolved",
      "pcli lineage stg_orders --column customer_id --downstream"
    )
  )
)

const testCommand = Command.make("test", { ...commonOptions, select: selectOption }, (opts) => Effect.flatMap(testImpl, (m) => m.runTest(opts))).pipe(
  Command.withDescription(
    described(
      "Run the models' data tests and [freshness] checks against what is built, without building; exit 1 on an error-severity failure or a model not built",
      "pcli test --select tag:layer=staging"
    )
  )
)

export const inspectCommands = [lsCommand, lineageCommand, testCommand] as const
