// The warehouse a witnessed head (decisions 35) is read from or written to, and `audit --verify`'s layer:
// apart from WitnessLayers.ts so the verify loads no policy engine (freeze's layer needs it, the verify never does).
import { Layer, Option } from "effect"
import { type GlobalOptions, ProjectLayer, stateLayer } from "./ProjectLayer"
import { warehouseLayer } from "./WarehouseTarget"

/**
 * The warehouse a witness is read from (`readOnly`: an embedded file opened READ_ONLY) or written to, opened on
 * first use; none when its target cannot be built.
 */
export const witnessWarehouse = (target: string | undefined, readOnly = false) =>
  warehouseLayer(Option.fromNullable(target), true, readOnly).pipe(Layer.catchAll(() => Layer.empty))

/**
 * `audit --verify`: the store opened for reading, and the warehouse that may hold its witnessed head
 * (decisions 35), opened only when the record is read. A target that cannot be built leaves no witness.
 */
export const AuditVerifyLayer = (options: GlobalOptions, target: string | undefined) =>
  Layer.merge(stateLayer("read"), witnessWarehouse(target, true)).pipe(Layer.provideMerge(ProjectLayer(options)))
