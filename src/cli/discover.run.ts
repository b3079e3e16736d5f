// Loaded only when `pcli discover` runs: the HTTP client and cache SDKs stay off the start-up path.
import { Effect, Option } from "effect"
import { discover } from "../commands/discover"
import * as commandLayer from "../layers/commandLayers"
import { DiscoverOutput } from "../schemas/discover"
import { renderDiscoverText } from "../render/text/discover"
import type { DiscoverOptions } from "./discover"
import { globalOptions } from "./options"
import { emit, liveProgress, writeStderr } from "./output"

export const runDiscover = (opts: DiscoverOptions) =>
  Effect.gen(function* () {
    const live = liveProgress(opts.output)
    const out = yield* discover({
      adapter: Option.getOrUndefined(opts.adapter),
      noCache: opts.noCache,
      emitTo: Option.getOrUndefined(opts.emitEltStateTo),
      onProgress: ({ done, total }) => (live ? writeStderr(`\r\x1b[2Kfetching connector schemas ${done}/${total}`) : Effect.void)
    })
    if (live) yield* writeStderr("\r\x1b[2K")
    yield* emit(opts.output, DiscoverOutput, out, renderDiscoverText)
  }).pipe(Effect.provide(commandLayer.discover(globalOptions(opts))))
