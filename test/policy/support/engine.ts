import { NodeContext } from "@effect/platform-node"
import { Layer } from "effect"
import type { LedgerRow } from "../../../src/services/Ledger/Ledger"
import * as PolicyEngine from "../../../src/services/PolicyEngine/PolicyEngine"
import { seededLedgerLayer } from "./seededLedger"

/** Engine + its in-memory ledger + the real file system. */
export const engineLayer = (
  settings: PolicyEngine.PolicySettings,
  ledger: Layer.Layer<import("../../../src/services/Ledger/Ledger").Ledger> = seededLedgerLayer([] as ReadonlyArray<LedgerRow>)
) => PolicyEngine.layer(settings).pipe(Layer.provideMerge(ledger), Layer.provideMerge(NodeContext.layer))
