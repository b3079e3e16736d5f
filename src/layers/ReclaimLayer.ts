import { Effect, Layer, Option } from "effect"
import * as Compiler from "../services/Project/compile"
import * as Plans from "../services/Plans/layer"
import { ProjectContext } from "../services/ProjectConfig/ProjectContext"
import * as RunStore from "../services/Runner/RunStore"
import { GatedProjectLayer, type GlobalOptions, stateLayer } from "./ProjectLayer"
import { warehouseLayer } from "./WarehouseTarget"

const plansLayer = Layer.unwrapEffect(Effect.map(ProjectContext, (p) => Plans.layer(p.root)))

/** `pcli backfill`: compiler, run history for seeds and cost, plans, the ledger for the decision row. */
export const BackfillLayer = (options: GlobalOptions) =>
  Layer.mergeAll(plansLayer, Compiler.layer, RunStore.layer).pipe(
    Layer.provideMerge(stateLayer("write")),
    Layer.provideMerge(GatedProjectLayer(options))
  )

/**
 * `pcli gc --derivable`: the ledger snapshot; plans and the ledger row only when a plan is written;
 * the warehouse's catalog (opened on first use, read-only for the dry run) for environment tables.
 */
export const GcLayer = (options: GlobalOptions, dryRun: boolean) =>
  Layer.mergeAll(plansLayer, warehouseLayer(Option.none(), true, dryRun)).pipe(
    Layer.provideMerge(stateLayer(dryRun ? "read" : "write")),
    Layer.provideMerge(GatedProjectLayer(options))
  )
