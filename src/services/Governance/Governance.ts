import type { FileSystem, Path } from "@effect/platform"
import { Clock, Context, Data, Effect, Option } from "effect"
import * as NodeFs from "node:fs"
import { hashCanonical } from "../Artifacts/artifacts"
import { ledgerHead } from "../Ledger/head"
import { Ledger, type LedgerUnavailable, type NewLedgerRow } from "../Ledger/Ledger"
import { openLedgerAt } from "../Ledger/openAt"
import { refusalRow } from "../Plans/ledgerRows"
import { Principal } from "../Principal/Principal"
import { ProjectContext } from "../ProjectConfig/ProjectContext"
import { storeId } from "../StateStore/storeId"
import { type StatementFailed, Warehouse, type WarehouseService } from "../Warehouse/Warehouse"
import { writeObjectWitness } from "./objectWitness"
import { type GovernanceRecord, readRecord, warehouseExists, writeRecord } from "./record"

/** An agent acting on a warehouse another state store or another `[policy]` governs (decisions 35). */
export class GovernanceMismatch extends Data.TaggedError("GovernanceMismatch")<{
  readonly differences: ReadonlyArray<string>
  /** Why the refusal could not be recorded, when it could not. */
  readonly unrecorded?: string | undefined
}> {
  readonly code = "governance-mismatch"
  override get message() {
    const note = this.unrecorded === undefined ? "the refusal is in the ledger" : `the refusal could not be recorded: ${this.unrecorded}`
    return `this warehouse is governed by another ${this.differences.join(" and by another ")}; an agent may not change it (${note})`
  }
}

/** Who governs this command: its state store's id and its `[policy]`'s digest (null when absent). */
export interface Governor {
  readonly storeId: string | null
  readonly policyDigest: string | null
  /** Where this command's store is. */
  readonly storePath: string
  /** The `[state]` object tier, which keeps a copy of the witness when configured. */
  readonly objectTier: string | undefined
}

const short = (id: string) => id.slice(0, 12)

export const currentGovernor: Effect.Effect<Governor, never, ProjectContext> = Effect.gen(function* () {
  const { config, state } = yield* ProjectContext
  const policy = Option.flatMap(config, (c) => Option.fromNullable(c.settings.policy))
  const objectTier = Option.getOrUndefined(Option.flatMap(config, (c) => Option.fromNullable(c.settings.state?.object_store_url)))
  return { storeId: yield* storeId, policyDigest: Option.isNone(policy) ? null : hashCanonical(policy.value), storePath: state.path, objectTier }
})

/** What differs between the record and this command's governor, each as a phrase naming both sides. */
export const differences = (record: GovernanceRecord, mine: Governor): ReadonlyArray<string> => [
  ...(record.store_id === mine.storeId
    ? []
    : [`state store (${short(record.store_id)}; this command's is ${mine.storeId === null ? "a store that does not exist" : short(mine.storeId)})`]),
  ...(record.policy_digest === mine.policyDigest
    ? []
    : [`[policy] (digest ${short(record.policy_digest)}; this config's is ${mine.policyDigest === null ? "absent: no [policy] block" : short(mine.policyDigest)})`])
]

/**
 * Before a governed mutation touches the warehouse: one read of its record. An agent under another
 * governor is refused (one refusal row per model, in the store it ran against); a human is warned
 * and proceeds. Returns the witness to run after the mutation's ledger rows.
 */
export const governWarehouse = (
  models: ReadonlyArray<string>,
  planId: string | null = null
): Effect.Effect<Effect.Effect<void, StatementFailed | LedgerUnavailable>, GovernanceMismatch | StatementFailed, Warehouse | ProjectContext | Principal | Ledger | FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function* () {
    const wh = yield* Warehouse
    const actor = yield* Principal
    const read = yield* Effect.either(readRecord(wh))
    // An agent fails closed; a human is told and proceeds, and nothing is witnessed over a record not read.
    if (read._tag === "Left") {
      if (actor.class === "agent") return yield* read.left
      yield* Effect.logWarning(`governance: the warehouse's governance record could not be read (${read.left.detail}); proceeding as a human`)
      return Effect.void
    }
    const record = read.right
    const mine = yield* currentGovernor
    const found = record === undefined ? [] : differences(record, mine)
    if (found.length > 0) {
      if (actor.class === "agent") {
        const refusal = new GovernanceMismatch({ differences: found })
        const row = refusalRow({ actor, principal: "agent", capability: "apply", planId, error: refusal })
        const written = yield* Effect.either(appendGoverning(record!, mine, models.length === 0 ? [row] : models.map((model) => ({ ...row, model }))))
        return yield* written._tag === "Left" ? new GovernanceMismatch({ differences: found, unrecorded: written.left.detail }) : refusal
      }
      yield* Effect.logWarning(`governance: this warehouse is governed by another ${found.join(" and by another ")}; proceeding as a human`)
    }
    return witness(wh, mine, record !== undefined)
  })

/**
 * Where a mismatch's refusal is recorded: the governing store, when the record says where it is
 * and the store there is the one it names (an agent pointing `--state-path` elsewhere must not
 * hide its refusal in a store of its choosing); else this command's store.
 */
const appendGoverning = (record: GovernanceRecord, mine: Governor, rows: ReadonlyArray<NewLedgerRow>) =>
  Effect.gen(function* () {
    const own = yield* Ledger
    const path = record.store_path
    if (record.store_id === mine.storeId || path === undefined || path === mine.storePath || !NodeFs.existsSync(path)) return yield* own.appendAll(rows)
    const opened = yield* Effect.either(
      Effect.gen(function* () {
        const context = yield* openLedgerAt({ path, createParent: false }, "write")
        const id = yield* Effect.provide(storeId, context)
        return id === record.store_id ? Context.get(context, Ledger) : undefined
      })
    )
    return yield* (opened._tag === "Right" && opened.right !== undefined ? opened.right : own).appendAll(rows)
  }).pipe(Effect.scoped)

/**
 * An agent answers to an existing warehouse's governor before any model is evaluated, so a
 * mismatch leaves its refusal rows and no evaluation rows. Undefined when not checked here (a
 * human, or no warehouse yet): the check then runs once the warehouse is opened.
 */
export const governAgentFirst = (
  models: ReadonlyArray<string>,
  planId: string | null = null
): Effect.Effect<Effect.Effect<void, StatementFailed | LedgerUnavailable> | undefined, GovernanceMismatch | StatementFailed, Warehouse | ProjectContext | Principal | Ledger | FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function* () {
    const actor = yield* Principal
    if (actor.class !== "agent" || !(yield* warehouseExists)) return undefined
    return yield* governWarehouse(models, planId)
  })

/**
 * After a governed mutation's ledger rows: the ledger head into the warehouse record (one statement).
 * Only under a `[policy]`: the first such mutation creates the record; a human's re-pins it to this governor.
 */
const witness = (wh: WarehouseService, mine: Governor, exists: boolean) =>
  Effect.gen(function* () {
    if (mine.policyDigest === null || mine.storeId === null) return
    const head = yield* ledgerHead
    const at = new Date(yield* Clock.currentTimeMillis).toISOString()
    const record = { store_id: mine.storeId, policy_digest: mine.policyDigest, head_seq: head.seq, head_hash: head.hash, store_path: mine.storePath }
    yield* writeRecord(wh, record, exists, at)
    yield* writeObjectWitness(mine.objectTier, record, at)
  })

/**
 * After a freeze's or unfreeze's rows: the new head into the record of a warehouse this governor
 * already holds (never creating or re-pinning one). Best effort: the rows are recorded either way,
 * and a warehouse held by a running build must not stop a freeze.
 */
export const advanceWitness: Effect.Effect<void> = Effect.gen(function* () {
  const wh = yield* Effect.serviceOption(Warehouse)
  const project = yield* Effect.serviceOption(ProjectContext)
  if (Option.isNone(wh) || Option.isNone(project) || !(yield* warehouseExists)) return
  const record = yield* readRecord(wh.value)
  const mine = yield* Effect.provideService(currentGovernor, ProjectContext, project.value)
  if (record === undefined || differences(record, mine).length > 0) return
  yield* witness(wh.value, mine, true)
}).pipe(Effect.catchAll((e) => Effect.logWarning(`governance: the ledger head was not witnessed in the warehouse: ${e.message}`)))
