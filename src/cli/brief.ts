import { Command, Options } from "@effect/cli"
import { Effect } from "effect"
import { described } from "./help"
import { commonOptions } from "./options"

const impl = Effect.promise(() => import("./brief.run"))

export const briefCommand = Command.make(
  "brief",
  {
    ...commonOptions,
    since: Options.choice("since", ["last", "24h", "7d"]).pipe(
      Options.withDefault("last" as const),
      Options.withDescription("Window: since the previous `last` digest (advances the stored cursor), or the last 24h / 7d (write nothing)")
    )
  },
  (opts) => Effect.flatMap(impl, (m) => m.runBrief(opts))
).pipe(Command.withDescription(described("A Markdown digest: review queue, agent activity, runs, quality, cost, freezes", "pcli brief --since 24h")))
