import { Effect, Layer } from "effect"
import * as Digest from "../services/Digest/DigestStore"
import { Environment } from "../services/Environment/Environment"
import { Ledger as LedgerTag } from "../services/Ledger/Ledger"
import * as Ledger from "../services/Ledger/sqlite"
import { refusalRow } from "../services/Plans/ledgerRows"
import { principalFromRole } from "../services/Principal/databaseRole"
import { Principal } from "../services/Principal/Principal"
import { ProjectContext } from "../services/ProjectConfig/ProjectContext"
import * as StateStore from "../services/StateStore/StateStore"
import { type GlobalOptions, ProjectLayer } from "./ProjectContextLayer"

export { BareLayer, ConfigLayer, GatedProjectLayer, type GlobalOptions, principalLayer, ProjectLayer } from "./ProjectContextLayer"

/**
 * decisions.md 36: on a PostgreSQL store the acting principal is the connection's role. A claim that
 * disagrees is refused with one refusal row under the verified principal; a role in neither group
 * (or both) is refused with nothing written. On SQLite the claimed principal stands.
 */
const roleVerifiedPrincipal = Layer.effect(
  Principal,
  Effect.gen(function* () {
    const claimed = yield* Principal
    const store = yield* StateStore.StateStore
    if (store.backend !== "postgres" || !store.persisted) return claimed
    const ledger = yield* LedgerTag
    const env = yield* Environment
    return yield* principalFromRole(claimed, env["PCLI_PRINCIPAL"]).pipe(
      Effect.tapErrorTag("PrincipalMismatch", (e) =>
        ledger.append(refusalRow({ actor: e.verified, principal: e.verified.class, capability: null, planId: null, error: e }))
      )
    )
  })
)

/** SqlClient + StateStore + Ledger (+ the brief's reads) over the resolved project's store, the claimed principal left as it is. */
export const storeLayer = (mode: StateStore.StateStoreMode) =>
  Layer.unwrapEffect(
    Effect.map(ProjectContext, (p) => Layer.mergeAll(Ledger.layer, Digest.layer).pipe(Layer.provideMerge(StateStore.layer(p.state, mode))))
  )

/** `storeLayer`, and the principal the store's role verifies: what every command that acts on the store uses. */
export const stateLayer = (mode: StateStore.StateStoreMode) => roleVerifiedPrincipal.pipe(Layer.provideMerge(storeLayer(mode)))

/** Read commands over the state store (state info): never create or write it. */
export const StateReadLayer = (options: GlobalOptions) => stateLayer("read").pipe(Layer.provideMerge(ProjectLayer(options)))

/** `state info`: any role may look, a DBA's too; it reports the role rather than acting as it. */
export const StateInfoLayer = (options: GlobalOptions) => storeLayer("read").pipe(Layer.provideMerge(ProjectLayer(options)))

/** A write handle on the store of the project a command already resolved (brief's cursor, `pcli test`'s freshness checks), opened on use. */
export const StoreWriteLayer = Layer.unwrapEffect(Effect.map(ProjectContext, (p) => StateStore.layer(p.state, "write")))

/** Brief's one write (its cursor), to the store of the project its read already resolved: no second project resolution. */
export const CursorWriteLayer = Digest.layer.pipe(Layer.provideMerge(Layer.unwrapEffect(Effect.map(ProjectContext, (p) => StateStore.currentStoreWriteLayer(p.state)))))
