import { Effect, Layer, Option } from "effect"
import { refuseAgentRun } from "../services/Plans/runGate"
import { compactHeap } from "../platform/heap"
import * as Compiler from "../services/Project/compile"
import * as Runner from "../services/Runner/run"
import * as RunStore from "../services/Runner/RunStore"
import { modelAttributesLayer } from "../services/Project/policyAttributes"
import { policyLayer } from "./PolicyQueryLayer"
import { GatedProjectLayer, type GlobalOptions, ProjectLayer, stateLayer } from "./ProjectLayer"
import { warehouseLayer } from "./WarehouseTarget"

/** `pcli compile`: the compiler over the resolved models directory. */
export const CompileLayer = (options: GlobalOptions) => Compiler.layer.pipe(Layer.provideMerge(ProjectLayer(options, true)))

/** Compiler, runner, run store, the chosen warehouse target and policy (needs the resolved project); a run keeps its JS heap compact. */
export const RunServices = (target: string | undefined, lazyWarehouse = false) =>
  Layer.mergeAll(Compiler.layer, Runner.layer, modelAttributesLayer, Layer.effectDiscard(compactHeap)).pipe(
    Layer.provideMerge(RunStore.layer),
    // An agent naming an unknown --target is a refusal with its row (issue 32 item 7).
    Layer.provideMerge(warehouseLayer(Option.fromNullable(target), lazyWarehouse).pipe(Layer.tapError((e) => (e._tag === "UnknownTarget" ? refuseAgentRun(e) : Effect.void)))),
    Layer.provideMerge(policyLayer),
    Layer.provideMerge(stateLayer("write"))
  )

/** `pcli run`: the run services over the project, policy for the agent gate; the embedded warehouse opens when the run needs it. */
export const RunLayer = (options: GlobalOptions, target: string | undefined) =>
  RunServices(target, true).pipe(Layer.provideMerge(GatedProjectLayer(options)))


/** `pcli test`: the compiler and the warehouse target (read-only), over the project; nothing is built. Its freshness checks are recorded through `StoreWriteLayer`. */
export const TestLayer = (options: GlobalOptions) =>
  Layer.mergeAll(Compiler.layer, warehouseLayer(Option.none(), true, true)).pipe(Layer.provideMerge(ProjectLayer(options, true)))
