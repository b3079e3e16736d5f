import { Layer, Option } from "effect"
import { governed } from "./PolicyLayer"
import { type GlobalOptions, ProjectLayer, stateLayer } from "./ProjectLayer"
import { warehouseLayer } from "./WarehouseTarget"

/**
 * `audit --verify`: the store opened for reading, and the warehouse that may hold its witnessed head
 * (decisions 35), opened only when the record is read. A target that cannot be built leaves no witness.
 */
export const AuditVerifyLayer = (options: GlobalOptions, target: string | undefined) =>
  Layer.merge(stateLayer("read"), witnessWarehouse(target)).pipe(Layer.provideMerge(ProjectLayer(options)))

/** The warehouse a witness is read from or written to, opened on first use; none when its target cannot be built. */
const witnessWarehouse = (target: string | undefined) => warehouseLayer(Option.fromNullable(target), true).pipe(Layer.catchAll(() => Layer.empty))

/** `policy freeze|unfreeze`: the policy write services, and the warehouse whose record witnesses the new head. */
export const FreezeLayer = (options: GlobalOptions) =>
  Layer.merge(governed("write"), witnessWarehouse(undefined)).pipe(Layer.provideMerge(ProjectLayer(options)))
