import { Layer, Option } from "effect"
import * as Compiler from "../services/Project/compile"
import * as Runner from "../services/Runner/run"
import * as RunStore from "../services/Runner/RunStore"
import { modelAttributesLayer } from "./ModelAttributes"
import { type GlobalOptions, policyLayer, ProjectLayer, stateLayer } from "./ProjectLayer"
import { warehouseLayer } from "./WarehouseTarget"

/** `pcli compile`: the compiler over the resolved models directory. */
export const CompileLayer = (options: GlobalOptions) => Compiler.layer.pipe(Layer.provideMerge(ProjectLayer(options, true)))

/** `pcli run`: compiler, runner, run store and the chosen warehouse target, policy for the agent gate. */
export const RunLayer = (options: GlobalOptions, target: string | undefined) =>
  Layer.mergeAll(Compiler.layer, Runner.layer, policyLayer, modelAttributesLayer).pipe(
    Layer.provideMerge(RunStore.layer),
    Layer.provideMerge(warehouseLayer(Option.fromNullable(target))),
    Layer.provideMerge(stateLayer("write")),
    Layer.provideMerge(ProjectLayer(options, true))
  )

