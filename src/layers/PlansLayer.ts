// The plans over a resolved project, and `pcli review <id> --status`'s layer: apart from ReviewLayer.ts, whose
// compiler (the queue's blast radius) status never uses, so status loads no compile module.
import { Effect, Layer } from "effect"
import * as Plans from "../services/Plans/layer"
import { ProjectContext } from "../services/ProjectConfig/ProjectContext"
import { type GlobalOptions, ProjectLayer, stateLayer } from "./ProjectLayer"

/** Plan store and applied state under the project root. */
export const plansLayer = Layer.unwrapEffect(Effect.map(ProjectContext, (p) => Plans.layer(p.root)))

/** `pcli review <id> --status`: the plans and the store, read-only (the same services as ReviewLayer's read form, less the compiler). */
export const PlansReadLayer = (options: GlobalOptions) =>
  plansLayer.pipe(Layer.provideMerge(stateLayer("read")), Layer.provideMerge(ProjectLayer(options, true)))
