import { Layer } from "effect"
import { DiscoverLive } from "../services/Discover/layer"
import { ConfigLayer, type GlobalOptions } from "./ProjectLayer"

/** `pcli discover`: the connector-sync client and the cache opener over the project config. */
export const DiscoverLayer = (options: GlobalOptions) => DiscoverLive.pipe(Layer.orDie, Layer.provideMerge(ConfigLayer(options)))
