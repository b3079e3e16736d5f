import { Layer } from "effect"
import { governed } from "./PolicyLayer"
import { type GlobalOptions, ProjectLayer } from "./ProjectLayer"
import { witnessWarehouse } from "./WitnessWarehouse"

/** `policy freeze|unfreeze`: the policy write services, and the warehouse whose record witnesses the new head. */
export const FreezeLayer = (options: GlobalOptions) =>
  Layer.merge(governed("write"), witnessWarehouse(undefined)).pipe(Layer.provideMerge(ProjectLayer(options)))
