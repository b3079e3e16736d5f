import { Effect } from "effect"
import type { EltAdapter } from "../schemas/adapters"
import { AmbiguousAdapter, NoEltAdapter } from "../services/Discover/adapterErrors"
import { discover as discoverSources } from "../services/Discover/Discover"
import { ProjectConfig } from "../services/ProjectConfig/ProjectConfig"

/** The connector-sync adapter to discover: `--adapter`, else the only `type = "elt"` block. */
const chooseAdapter = (adapters: Readonly<Record<string, { readonly type: string }>>, wanted: string | undefined) => {
  const elt = Object.entries(adapters).filter(([, a]) => a.type === "elt") as Array<[string, EltAdapter]>
  if (wanted !== undefined) {
    const hit = elt.find(([name]) => name === wanted)
    return hit === undefined ? Effect.fail(new NoEltAdapter({ wanted, known: elt.map(([n]) => n) })) : Effect.succeed(hit)
  }
  if (elt.length === 1) return Effect.succeed(elt[0]!)
  return elt.length === 0
    ? Effect.fail(new NoEltAdapter({ wanted: undefined, known: [] }))
    : Effect.fail(new AmbiguousAdapter({ adapters: elt.map(([n]) => n) }))
}

export interface DiscoverInput {
  readonly adapter?: string | undefined
  readonly noCache: boolean
  readonly emitTo?: string | undefined
  readonly onProgress?: (progress: { readonly done: number; readonly total: number }) => Effect.Effect<void>
}

/** `pcli discover`: connector-sync discovery read through the adapter's cache. */
export const discover = (input: DiscoverInput) =>
  Effect.gen(function* () {
    const { config } = yield* ProjectConfig
    const [adapterName, adapter] = yield* chooseAdapter(config.adapter, input.adapter)
    return yield* discoverSources({
      adapterName,
      adapter,
      noCache: input.noCache,
      emitTo: input.emitTo,
      onProgress: input.onProgress
    }).pipe(Effect.withSpan("pcli.discover", { attributes: { "pcli.adapter": adapterName } }))
  })
