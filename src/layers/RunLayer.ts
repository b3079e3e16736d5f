import { Layer, Option } from "effect"
import * as Compiler from "../services/Project/compile"
import * as Runner from "../services/Runner/run"
import * as RunStore from "../services/Runner/RunStore"
import { modelAttributesLayer } from "./ModelAttributes"
import { type GlobalOptions, policyLayer, ProjectLayer, stateLayer } from "./ProjectLayer"
import { warehouseLayer } from "./WarehouseTarget"

/** `pcli compile`: the compiler over the resolved models directory. */
export const CompileLayer = (options: GlobalOptions) => Compiler.layer.pipe(Layer.provideMerge(ProjectLayer(options, true)))

/** Compiler, runner, run store, the chosen warehouse target and policy (needs the resolved project). */
export const RunServices = (target: string | undefined) =>
  Layer.mergeAll(Compiler.layer, Runner.layer, policyLayer, modelAttributesLayer).pipe(
    Layer.provideMerge(RunStore.layer),
    Layer.provideMerge(warehouseLayer(Option.fromNullable(target))),
    Layer.provideMerge(stateLayer("write"))
  )

/** `pcli run`: the run services over the project, policy for the agent gate. */
export const RunLayer = (options: GlobalOptions, target: string | undefined) =>
  RunServices(target).pipe(Layer.provideMerge(ProjectLayer(options, true)))

