import * as RunStore from "../services/Runner/RunStore"
import { type GlobalOptions, StateReadLayer } from "./ProjectLayer"
import { Layer } from "effect"

/** `pcli history`: the run store over a read-only state store (no warehouse, no compiler). */
export const HistoryLayer = (options: GlobalOptions) => RunStore.layer.pipe(Layer.provideMerge(StateReadLayer(options)))
