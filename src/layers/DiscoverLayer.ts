import { Layer } from "effect"
import { DiscoverLive } from "../services/Discover/layer"
import { type GlobalOptions, ProjectLayer } from "./ProjectLayer"

/** `pcli discover`: the connector-sync client and the cache opener over the project (its config required). */
export const DiscoverLayer = (options: GlobalOptions) => DiscoverLive.pipe(Layer.orDie, Layer.provideMerge(ProjectLayer(options)))
