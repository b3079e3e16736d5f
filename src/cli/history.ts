import { Args, Command, Options } from "@effect/cli"
import { Effect } from "effect"
import { commonOptions } from "./options"
import { described } from "./help"

const impl = Effect.promise(() => import("./history.run"))

export const historyCommand = Command.make(
  "history",
  {
    ...commonOptions,
    runId: Args.text({ name: "run_id" }).pipe(Args.optional, Args.withDescription("Show this run with every model's outcome")),
    last: Options.integer("last").pipe(Options.optional, Options.withDescription("How many recent runs to list (default 20)")),
    model: Options.text("model").pipe(Options.optional, Options.withDescription("Only runs that include this model, with its outcome"))
  },
  (opts) => Effect.flatMap(impl, (m) => m.runHistory(opts))
).pipe(
  Command.withDescription(
    described("Read-only: past runs with their status, timings, outcomes and retries; or one run in full", "pcli history --last 5 --model stg_orders")
  )
)
