import { Args, Command } from "@effect/cli"
import { Effect } from "effect"
import { commonOptions } from "./options"
import { described } from "./help"

const impl = Effect.promise(() => import("./show.run"))

export const showCommand = Command.make(
  "show",
  { ...commonOptions, model: Args.text({ name: "model" }).pipe(Args.withDescription("The model to show")) },
  (opts) => Effect.flatMap(impl, (m) => m.runShow(opts))
).pipe(Command.withDescription(described("Read-only: one model's SQL, tags, tests, contract and neighbours", "pcli show stg_orders --output json")))
