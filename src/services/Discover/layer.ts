import { Layer } from "effect"
import * as DiscoverCache from "../DiscoverCache/DiscoverCache"
import * as EltApi from "../EltApi/EltApi"

/**
 * Live services `discover` needs besides the app-wide `EventBus` and a tracer: the
 * connector-sync client (undici + machine-wide rate budget) and the cache opener.
 * Requires `FileSystem` and `Path` (e.g. `NodeContext.layer`).
 */
export const DiscoverLive = Layer.mergeAll(EltApi.layer, DiscoverCache.layer)
