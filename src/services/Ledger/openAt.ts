import { Effect, Layer } from "effect"
import type { StateLocation, StateStoreMode } from "../StateStore/StateStore"

/**
 * The SQLite ledger of the store at `location`, opened for `mode` in the current scope, with the
 * store's own services beside it. SQLite and the store load on call, so an importer's start-up
 * pays nothing for a store it may never open.
 */
export const openLedgerAt = (location: StateLocation, mode: StateStoreMode) =>
  Effect.gen(function* () {
    const [Sqlite, StateStore] = yield* Effect.promise(() => Promise.all([import("./sqlite"), import("../StateStore/StateStore")]))
    return yield* Layer.build(Sqlite.layer.pipe(Layer.provideMerge(StateStore.layer(location, mode))))
  })
