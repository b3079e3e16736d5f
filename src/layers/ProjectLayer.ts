import { Effect, Layer } from "effect"
import * as Digest from "../services/Digest/DigestStore"
import * as Ledger from "../services/Ledger/sqlite"
import { ProjectContext } from "../services/ProjectConfig/ProjectContext"
import * as StateStore from "../services/StateStore/StateStore"
import { type GlobalOptions, ProjectLayer } from "./ProjectContextLayer"

export { BareLayer, ConfigLayer, type GlobalOptions, principalLayer, ProjectLayer } from "./ProjectContextLayer"

/** SqlClient + StateStore + Ledger (+ the brief's reads) over the resolved project's store. */
export const stateLayer = (mode: StateStore.StateStoreMode) =>
  Layer.unwrapEffect(
    Effect.map(ProjectContext, (p) => Layer.mergeAll(Ledger.layer, Digest.layer).pipe(Layer.provideMerge(StateStore.layer(p.state, mode))))
  )

/** Read commands over the state store (state info): never create or write it. */
export const StateReadLayer = (options: GlobalOptions) => stateLayer("read").pipe(Layer.provideMerge(ProjectLayer(options)))

/** Brief's one write (its cursor), to the store of the project its read already resolved: no second project resolution. */
export const CursorWriteLayer = Layer.unwrapEffect(Effect.map(ProjectContext, (p) => Digest.layer.pipe(Layer.provideMerge(StateStore.layer(p.state, "write")))))
