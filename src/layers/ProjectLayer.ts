import { Effect, Layer } from "effect"
import * as Digest from "../services/Digest/DigestStore"
import * as Ledger from "../services/Ledger/sqlite"
import { ProjectContext } from "../services/ProjectConfig/ProjectContext"
import * as StateStore from "../services/StateStore/StateStore"
import { modelAttributesLayer } from "../services/Project/policyAttributes"
import { type GlobalOptions, policyLayer, ProjectLayer } from "./ProjectContextLayer"

export {
  BareLayer,
  ConfigLayer,
  type GlobalOptions,
  PolicyQueryLayer,
  policyLayer,
  principalLayer,
  ProjectLayer
} from "./ProjectContextLayer"

/** SqlClient + StateStore + Ledger (+ the brief's reads) over the resolved project's store. */
export const stateLayer = (mode: StateStore.StateStoreMode) =>
  Layer.unwrapEffect(
    Effect.map(ProjectContext, (p) => Layer.mergeAll(Ledger.layer, Digest.layer).pipe(Layer.provideMerge(StateStore.layer(p.state, mode))))
  )

/** Policy and model attributes over the store opened for `mode` (needs the resolved project). */
export const governed = (mode: StateStore.StateStoreMode) =>
  Layer.mergeAll(policyLayer, modelAttributesLayer).pipe(Layer.provideMerge(stateLayer(mode)))

/** Read commands over the state store (state info): never create or write it. */
export const StateReadLayer = (options: GlobalOptions) => stateLayer("read").pipe(Layer.provideMerge(ProjectLayer(options)))

/** A command's one write to an existing store (brief's cursor). */
export const StateWriteLayer = (options: GlobalOptions) => stateLayer("write").pipe(Layer.provideMerge(ProjectLayer(options)))

/** Policy reads (show, check, test): policy, model attributes, the store opened for reading. */
export const PolicyReadLayer = (options: GlobalOptions) => governed("read").pipe(Layer.provideMerge(ProjectLayer(options)))

/** Policy writes (freeze, unfreeze): the same services over a store opened for writing. */
export const PolicyWriteLayer = (options: GlobalOptions) => governed("write").pipe(Layer.provideMerge(ProjectLayer(options)))

/** `pcli serve`: the read services over a store opened read-only (never migrated, never written). */
export const ReadOnlyLayer = (options: GlobalOptions) => governed("server").pipe(Layer.provideMerge(ProjectLayer(options)))
