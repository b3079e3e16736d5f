import { Args, Command, Options } from "@effect/cli"
import { Effect } from "effect"
import { commonOptions } from "./options"
import { described } from "./help"

const impl = Effect.promise(() => import("./branch.run"))

const branchName = Args.text({ name: "name" }).pipe(Args.withDescription("The branch: a lower-case identifier"))

const createCommand = Command.make(
  "create",
  {
    ...commonOptions,
    name: branchName,
    from: Options.text("from").pipe(Options.withDefault("prod"), Options.withDescription("The environment the branch starts from (default prod)"))
  },
  (opts) => Effect.flatMap(impl, (m) => m.runCreate(opts))
).pipe(Command.withDescription(described("Record a branch: its models read the base's tables until it builds its own", "pcli branch create feature_x --from prod")))

const listCommand = Command.make("list", commonOptions, (opts) => Effect.flatMap(impl, (m) => m.runList(opts))).pipe(
  Command.withDescription(described("List the branches, their base and last run", "pcli branch list --output json"))
)

const dropCommand = Command.make("drop", { ...commonOptions, name: branchName }, (opts) => Effect.flatMap(impl, (m) => m.runDrop(opts))).pipe(
  Command.withDescription(described("Drop a branch and its views; tables no environment references are left to gc", "pcli branch drop feature_x"))
)

const diffCommand = Command.make("diff", { ...commonOptions, name: branchName }, (opts) => Effect.flatMap(impl, (m) => m.runDiff(opts))).pipe(
  Command.withDescription(described("Per model: changed or reused against the base, column differences and row counts on both sides", "pcli branch diff feature_x"))
)

export const branchCommand = Command.make("branch").pipe(
  Command.withDescription(described("Environments: build a branch beside production, compare it, promote it with pcli plan --promote", "pcli branch create feature_x")),
  Command.withSubcommands([createCommand, listCommand, dropCommand, diffCommand])
)
