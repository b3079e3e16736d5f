// Loaded only when `pcli discover` runs: the HTTP client and cache SDKs stay off the start-up path.
import { Effect, Layer, Option } from "effect"
import { DiscoverOutput } from "../schemas/discover"
import type { EltAdapter } from "../schemas/adapters"
import { discover } from "../services/Discover/Discover"
import { DiscoverLive } from "../services/Discover/layer"
import { renderDiscoverText } from "../services/Discover/text"
import { ProjectConfig } from "../services/ProjectConfig/ProjectConfig"
import { emit, writeStderr } from "./render"
import type { DiscoverOptions } from "./discover"
import { AmbiguousAdapter, NoEltAdapter } from "./discover.errors"

/** The connector-sync adapter to discover: `--adapter`, else the only `type = "elt"` block. */
const chooseAdapter = (adapters: Readonly<Record<string, { readonly type: string }>>, wanted: Option.Option<string>) => {
  const elt = Object.entries(adapters).filter(([, a]) => a.type === "elt") as Array<[string, EltAdapter]>
  if (Option.isSome(wanted)) {
    const hit = elt.find(([name]) => name === wanted.value)
    return hit === undefined ? Effect.fail(new NoEltAdapter({ wanted: wanted.value, known: elt.map(([n]) => n) })) : Effect.succeed(hit)
  }
  if (elt.length === 1) return Effect.succeed(elt[0]!)
  return elt.length === 0
    ? Effect.fail(new NoEltAdapter({ wanted: undefined, known: [] }))
    : Effect.fail(new AmbiguousAdapter({ adapters: elt.map(([n]) => n) }))
}

export const runDiscover = (opts: DiscoverOptions) =>
  Effect.gen(function* () {
    const { config } = yield* ProjectConfig
    const [adapterName, adapter] = yield* chooseAdapter(config.adapter, opts.adapter)
    const live = opts.output === "text" && process.stderr.isTTY === true
    const out = yield* discover({
      adapterName,
      adapter,
      noCache: opts.noCache,
      emitTo: Option.getOrUndefined(opts.emitEltStateTo),
      onProgress: ({ done, total }) => (live ? writeStderr(`\r\x1b[2Kfetching connector schemas ${done}/${total}`) : Effect.void)
    }).pipe(Effect.withSpan("pcli.discover", { attributes: { "pcli.adapter": adapterName } }))
    if (live) yield* writeStderr("\r\x1b[2K")
    yield* emit(opts.output, DiscoverOutput, out, renderDiscoverText)
  }).pipe(Effect.provide(DiscoverLive.pipe(Layer.orDie)))
