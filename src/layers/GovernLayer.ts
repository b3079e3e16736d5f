import { Layer } from "effect"
import * as Compiler from "../services/Project/compile"
import * as RunStore from "../services/Runner/RunStore"
import { modelAttributesLayer } from "../services/Project/policyAttributes"
import { policyLayer } from "./PolicyQueryLayer"
import { GatedProjectLayer, type GlobalOptions, stateLayer } from "./ProjectLayer"
import { plansLayer } from "./ReviewLayer"
import { RunServices } from "./RunLayer"

export { plansLayer, ReviewLayer } from "./ReviewLayer"

/** `pcli plan`: compiler, policy and ledger (evaluations are recorded), plans, the builds' recorded attributes. */
export const PlanLayer = (options: GlobalOptions) =>
  Layer.mergeAll(plansLayer, Compiler.layer, policyLayer, modelAttributesLayer).pipe(
    Layer.provideMerge(RunStore.layer),
    Layer.provideMerge(stateLayer("write")),
    Layer.provideMerge(GatedProjectLayer(options))
  )

/** `pcli apply`: plans over the same services `pcli run` uses; the embedded warehouse opens after the gates (applyPlan). */
export const ApplyLayer = (options: GlobalOptions, target: string | undefined) =>
  plansLayer.pipe(Layer.provideMerge(RunServices(target, true)), Layer.provideMerge(GatedProjectLayer(options)))
