import { Command, Options } from "@effect/cli"
import { Effect } from "effect"
import { commonOptions } from "./options"

const impl = Effect.promise(() => import("./reclaim.run"))

const backfillCommand = Command.make(
  "backfill",
  {
    ...commonOptions,
    model: Options.text("model").pipe(Options.repeated, Options.withDescription("Model to rebuild (repeatable); its downstream closure is included")),
    fromLastRun: Options.boolean("from-last-run").pipe(Options.withDescription("Seed from the previous run's failed models; conflicts with --model")),
    from: Options.text("from").pipe(Options.optional, Options.withDescription("First partition key of the window (needs --to)")),
    to: Options.text("to").pipe(Options.optional, Options.withDescription("Last partition key of the window (needs --from)")),
    noDownstream: Options.boolean("no-downstream").pipe(Options.withDescription("Rebuild only the named or seed models"))
  },
  (opts) => Effect.flatMap(impl, (m) => m.runBackfill(opts))
).pipe(Command.withDescription("Compose a review-gated recovery plan: models, order, window, estimated cost"))

export const reclaimCommands = [backfillCommand] as const
