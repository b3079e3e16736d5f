// The plans and `pcli review`'s layer (also `audit --for`'s): apart from GovernLayer.ts so the read
// commands over plans load none of plan's or apply's services (the run's layers, the policy engine).
import { Effect, Layer } from "effect"
import * as Compiler from "../services/Project/compile"
import { plansLayer } from "./PlansLayer"
import { type GlobalOptions, ProjectLayer, stateLayer } from "./ProjectLayer"

export { plansLayer } from "./PlansLayer"

/** `pcli review`: plans, the compiler for queue ranking; the store is written only by --approve. */
export const ReviewLayer = (options: GlobalOptions, write: boolean) =>
  Layer.mergeAll(plansLayer, Compiler.lazyLayer()).pipe(
    Layer.provideMerge(stateLayer(write ? "write" : "read")),
    Layer.provideMerge(ProjectLayer(options, true))
  )
