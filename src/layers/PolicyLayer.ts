// The policy commands' layers over the state store (freeze, unfreeze; serve's reads): the
// policy engine and model attributes over the store opened in the command's mode.
import { Layer } from "effect"
import type * as StateStore from "../services/StateStore/StateStore"
import { modelAttributesLayer } from "../services/Project/policyAttributes"
import { policyLayer } from "./PolicyQueryLayer"
import { type GlobalOptions, ProjectLayer, stateLayer, storeLayer } from "./ProjectLayer"

/** Policy and model attributes over the store opened for `mode` (needs the resolved project). */
export const governed = (mode: StateStore.StateStoreMode) =>
  Layer.mergeAll(policyLayer, modelAttributesLayer).pipe(Layer.provideMerge(stateLayer(mode)))

/** Policy writes (freeze, unfreeze): the same services over a store opened for writing. */
export const PolicyWriteLayer = (options: GlobalOptions) => governed("write").pipe(Layer.provideMerge(ProjectLayer(options)))

/** `pcli serve`: the read services over a store opened read-only (never migrated, never written). */
// The server only reads: it acts as no one, so its store's role is not asked for a principal (decisions.md 36).
export const ReadOnlyLayer = (options: GlobalOptions) =>
  Layer.mergeAll(policyLayer, modelAttributesLayer).pipe(Layer.provideMerge(storeLayer("server")), Layer.provideMerge(ProjectLayer(options)))
