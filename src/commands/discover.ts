import { Effect, Option } from "effect"
import { AmbiguousAdapter, NoEltAdapter } from "../services/Discover/adapterErrors"
import { discover as discoverSources } from "../services/Discover/Discover"
import { type AdapterRef, ConfigNotFound } from "../services/ProjectConfig/ProjectConfig"
import { ProjectContext } from "../services/ProjectConfig/ProjectContext"

/** The connector-sync adapter to discover: `--adapter`, else the only `type = "elt"` block. */
const chooseAdapter = (adapters: ReadonlyArray<AdapterRef>, wanted: string | undefined) => {
  const elt = adapters.filter((a) => a.type === "elt")
  if (wanted !== undefined) {
    const hit = elt.find((a) => a.name === wanted)
    return hit === undefined ? Effect.fail(new NoEltAdapter({ wanted, known: elt.map((a) => a.name) })) : Effect.succeed(hit)
  }
  if (elt.length === 1) return Effect.succeed(elt[0]!)
  return elt.length === 0
    ? Effect.fail(new NoEltAdapter({ wanted: undefined, known: [] }))
    : Effect.fail(new AmbiguousAdapter({ adapters: elt.map((a) => a.name) }))
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
    const project = yield* ProjectContext
    if (Option.isNone(project.config)) return yield* new ConfigNotFound({ searched: project.root })
    const ref = yield* chooseAdapter(project.config.value.adapters, input.adapter)
    // Only this adapter's `${VAR}`s are resolved.
    const adapter = yield* ref.resolve
    if (adapter.type !== "elt") return yield* new NoEltAdapter({ wanted: ref.name, known: [] })
    const adapterName = ref.name
    return yield* discoverSources({
      adapterName,
      adapter,
      noCache: input.noCache,
      emitTo: input.emitTo,
      onProgress: input.onProgress
    }).pipe(Effect.withSpan("pcli.discover", { attributes: { "pcli.adapter": adapterName } }))
  })
