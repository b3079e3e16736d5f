import { Command, Options } from "@effect/cli"
import { Effect, type Option } from "effect"
import { type CommonOptions, commonOptions } from "./options"

const discoverOptions = {
  ...commonOptions,
  adapter: Options.text("adapter").pipe(Options.optional, Options.withDescription("The type = \"elt\" adapter (default: the only one)")),
  noCache: Options.boolean("no-cache").pipe(Options.withDescription("Skip the cache read; the fresh envelope is still written back")),
  emitEltStateTo: Options.text("emit-elt-state-to").pipe(Options.optional, Options.withDescription("Also write the envelope to this file"))
}

export interface DiscoverOptions extends CommonOptions {
  readonly adapter: Option.Option<string>
  readonly noCache: boolean
  readonly emitEltStateTo: Option.Option<string>
}

export const discoverCommand = Command.make("discover", discoverOptions, (opts) =>
  Effect.flatMap(
    Effect.promise(() => import("./discover.run")),
    (m) => m.runDiscover(opts)
  )
).pipe(Command.withDescription("Discover sources through the connector-sync API, read through the discover cache"))
