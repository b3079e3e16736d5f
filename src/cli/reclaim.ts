import { Args, Command, Options } from "@effect/cli"
import { Effect } from "effect"
import { commonOptions } from "./options"
import { described } from "./help"

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
).pipe(Command.withDescription(described("Compose a review-gated recovery plan: models, order, window, estimated cost", "pcli backfill --model stg_orders --from 2024-01-01 --to 2024-01-07")))

const gcCommand = Command.make(
  "gc",
  {
    ...commonOptions,
    derivable: Options.boolean("derivable").pipe(Options.withDescription("Restrict to the derivability inventory/plan (the only mode)")),
    dryRun: Options.boolean("dry-run").pipe(Options.withDescription("Print the read-only inventory instead of writing a plan")),
    minAgeDays: Options.integer("min-age-days").pipe(Options.withDefault(7), Options.withDescription("Minimum written-age in whole days"))
  },
  (opts) => Effect.flatMap(impl, (m) => m.runGc(opts))
).pipe(Command.withDescription(described("Inventory derivable artifacts and the physical tables no environment reads, or plan their reclamation (artifacts evicted, tables dropped after review)", "pcli gc --derivable --dry-run")))

const restoreCommand = Command.make(
  "restore",
  { ...commonOptions, target: Args.text({ name: "target" }).pipe(Args.withDescription("model, model@<recipe-prefix>, or >= 8 hex of the content hash")) },
  (opts) => Effect.flatMap(impl, (m) => m.runRestore(opts))
).pipe(Command.withDescription(described("Plan the restore of an evicted artifact (review-gated; never writes bytes directly)", "pcli restore orders_daily")))

export const reclaimCommands = [backfillCommand, gcCommand, restoreCommand] as const
