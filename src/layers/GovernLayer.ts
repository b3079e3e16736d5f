import { Effect, Layer } from "effect"
import * as Compiler from "../services/Project/compile"
import * as Plans from "../services/Plans/layer"
import * as RunStore from "../services/Runner/RunStore"
import { ProjectContext } from "../services/ProjectConfig/ProjectContext"
import { modelAttributesLayer } from "../services/Project/policyAttributes"
import { policyLayer } from "./PolicyQueryLayer"
import { type GlobalOptions, ProjectLayer, stateLayer } from "./ProjectLayer"
import { RunServices } from "./RunLayer"

/** Plan store and applied state under the project root. */
export const plansLayer = Layer.unwrapEffect(Effect.map(ProjectContext, (p) => Plans.layer(p.root)))

/** `pcli plan`: compiler, policy and ledger (evaluations are recorded), plans, the builds' recorded attributes. */
export const PlanLayer = (options: GlobalOptions) =>
  Layer.mergeAll(plansLayer, Compiler.layer, policyLayer, modelAttributesLayer).pipe(
    Layer.provideMerge(RunStore.layer),
    Layer.provideMerge(stateLayer("write")),
    Layer.provideMerge(ProjectLayer(options, true))
  )

/** `pcli review`: plans, the compiler for queue ranking; the store is written only by --approve. */
export const ReviewLayer = (options: GlobalOptions, write: boolean) =>
  Layer.mergeAll(plansLayer, Compiler.layer).pipe(
    Layer.provideMerge(stateLayer(write ? "write" : "read")),
    Layer.provideMerge(ProjectLayer(options, true))
  )

/** `pcli apply`: plans over the same services `pcli run` uses; the embedded warehouse opens after the gates (applyPlan). */
export const ApplyLayer = (options: GlobalOptions, target: string | undefined) =>
  plansLayer.pipe(Layer.provideMerge(RunServices(target, true)), Layer.provideMerge(ProjectLayer(options, true)))
