import { Chunk, Clock, Effect, Stream } from "effect"
import { randomUUID } from "node:crypto"
import type { FreezeEntry, PolicyFreezeOutput } from "../../schemas/policy-output"
import type { Principal } from "../../schemas/policy"
import type { LedgerRow, LedgerService, LedgerUnavailable, NewLedgerRow } from "../Ledger/Ledger"
import { type ActiveFreeze, type FreezeMarkerBody, ledgerFreezes, markerFreezes } from "./dynamic"
import { type FreezeSourceUnreadable, type InvalidPrincipal, NoMatchingFreeze, SelectorTooLong, UnfreezeNeedsHuman } from "./errors"
import type { CompiledPolicy } from "./evaluate"
import type { ActingPrincipal } from "../Principal/Principal"
import { parsePrincipal } from "./input"
import type { FreezeMarkerStore, MarkerWriteFailed } from "./markers"
import type { PolicySettings } from "./PolicyEngine"
import { type InvalidSelector, InvalidSelector as InvalidSelectorError, parseSelectorOption } from "./selector"

export interface FreezeInput {
  /** `--principal`; omitted means both, agent first. */
  readonly principal?: string | undefined
  /** `--scope`; omitted means `any`. */
  readonly scope?: string | undefined
  /** `--reason`; omitted means a generated sentence. */
  readonly reason?: string | undefined
}

export type FreezeError =
  | InvalidPrincipal
  | InvalidSelector
  | SelectorTooLong
  | NoMatchingFreeze
  | FreezeSourceUnreadable
  | LedgerUnavailable
  | MarkerWriteFailed
  | UnfreezeNeedsHuman

/** decisions.md 31: a freeze or unfreeze scope is at most this many characters (code points). */
export const MAX_SELECTOR_LENGTH = 1024

/** The principals and scope a freeze or unfreeze names, checked before anything is read or written. */
const freezeTarget = (input: FreezeInput) =>
  Effect.gen(function* () {
    const principals: ReadonlyArray<Principal> =
      input.principal === undefined ? ["agent", "human"] : [yield* parsePrincipal(input.principal)]
    const scope = input.scope ?? "any"
    const length = [...scope].length
    if (length > MAX_SELECTOR_LENGTH) return yield* new SelectorTooLong({ length, limit: MAX_SELECTOR_LENGTH })
    if (parseSelectorOption(scope) === undefined) return yield* new InvalidSelectorError({ selector: scope })
    return { principals, scope }
  })

const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms).toISOString())

const exactly = (freezes: ReadonlyArray<ActiveFreeze>, principal: Principal, scope: string) =>
  freezes.find((f) => f.principal === principal && f.scope === scope)

const markerBody = (body: FreezeMarkerBody) => `${JSON.stringify(body, null, 2)}\n`

const notEnforced = (direction: "freeze" | "unfreeze", principals: ReadonlyArray<Principal>, scope: string, configured: boolean) =>
  configured ? [] : [`${direction} of ${principals.join(" and ")} on scope '${scope}' recorded but NOT enforced: pcli.toml has no [policy] block`]

const freezeRow = (kind: "freeze" | "unfreeze" | "refusal", principal: Principal, scope: string, reason: string, planId: string, actor: ActingPrincipal): NewLedgerRow => ({
  kind,
  principal: actor.class,
  principal_id: actor.id,
  principal_id_source: actor.source,
  target_principal: principal,
  capability: "apply",
  model: scope,
  effect: kind === "unfreeze" ? "allow" : "deny",
  rule_id: null,
  plan_id: planId,
  reason
})

const entryOf = (row: LedgerRow, principal: Principal): FreezeEntry => ({
  principal,
  effect: row.effect ?? "deny",
  decision_ref: row.decision_ref,
  plan_id: row.plan_id ?? "",
  reason: row.reason ?? ""
})

/**
 * `policy freeze`: any principal may freeze. Per principal, a freeze already in force on the
 * exact scope is kept with its first reason and reported in `already_frozen`; whatever is
 * missing (ledger row, durable marker) is written. Markers first, then every row in one
 * transaction: a failed marker write records nothing (docs/decisions.md).
 */
const freeze = (deps: FreezeDeps, input: FreezeInput, actor: ActingPrincipal): Effect.Effect<PolicyFreezeOutput, FreezeError> =>
  Effect.gen(function* () {
    const { principals, scope } = yield* freezeTarget(input)
    const { ledger } = deps
    const inLedger = ledgerFreezes(yield* Effect.map(Stream.runCollect(ledger.query({ kinds: ["freeze", "unfreeze"] })), Chunk.toReadonlyArray))
    // Unreadable markers count as "not there": writing one more freeze marker is always safe.
    const inMarkers =
      deps.markerStore === undefined ? [] : yield* deps.markerStore.list.pipe(Effect.map(markerFreezes), Effect.orElseSucceed(() => []))
    const markerWrites = deps.settings.policy?.freeze_marker_writes === true ? deps.markerStore : undefined
    const recordedAt = yield* now
    const plans = principals.map((principal) => {
      const ledgerHit = exactly(inLedger, principal, scope)
      const markerHit = exactly(inMarkers, principal, scope)
      const existing = ledgerHit ?? markerHit
      const reason = existing?.reason ?? input.reason ?? `${principal} frozen on scope '${scope}' by ${actor.class}(${actor.id})`
      const planId = ledgerHit?.plan_id ?? `freeze:${principal}:${recordedAt}`
      return { principal, existing, reason, planId, needRow: ledgerHit === undefined, needMarker: markerWrites !== undefined && markerHit === undefined }
    })
    if (markerWrites !== undefined) {
      for (const plan of plans.filter((p) => p.needMarker)) {
        const id = randomUUID()
        yield* markerWrites.write("freeze", id, markerBody({ freeze_id: id, principal: plan.principal, scope, reason: plan.reason, created_at: recordedAt, plan_id: plan.planId }))
      }
    }
    const toRecord = plans.filter((p) => p.needRow)
    const rows = yield* ledger.appendAll(toRecord.map((p) => freezeRow("freeze", p.principal, scope, p.reason, p.planId, actor)))
    const kept = plans.flatMap((p) => (p.existing === undefined ? [] : [{ ...p.existing, principal: p.principal }]))
    const notes = [
      ...kept.map(
        (f) =>
          `${f.principal} is already frozen on scope '${scope}'${f.since === undefined ? "" : ` since ${f.since}`} (${f.plan_id ?? f.freeze_id ?? f.source}); the first reason stands: ${f.reason}`
      ),
      ...notEnforced("freeze", principals, scope, deps.compiled.configured)
    ]
    return {
      command: "policy_freeze" as const,
      lifted: false,
      scope,
      recorded_at: recordedAt,
      entries: rows.map((row, i) => entryOf(row, toRecord[i]!.principal)),
      ...(kept.length === 0 ? {} : { already_frozen: kept.map(({ decision_ref: _, ...f }) => f) }),
      ...(notes.length === 0 ? {} : { notes })
    }
  })

/** An agent's unfreeze: one refusal row per named principal (one transaction), then `unfreeze-needs-human`. */
const refuseUnfreeze = (ledger: LedgerService, principals: ReadonlyArray<Principal>, scope: string, label: string, actor: ActingPrincipal) =>
  Effect.gen(function* () {
    const recordedAt = yield* now
    const written = yield* Effect.either(
      ledger.appendAll(
        principals.map((principal) =>
          freezeRow(
            "refusal",
            principal,
            scope,
            `unfreeze of ${principal} on scope '${scope}' refused: only a human may lift a freeze (asked by ${actor.class}(${actor.id}))`,
            `unfreeze-refused:${principal}:${recordedAt}`,
            actor
          )
        )
      )
    )
    return yield* new UnfreezeNeedsHuman({
      principal: label,
      scope,
      actor: `${actor.class}(${actor.id})`,
      unrecorded: written._tag === "Left" ? written.left.detail : undefined
    })
  })

/** `policy unfreeze`: humans only; lifts only freezes whose (principal, scope string) match exactly. */
const unfreeze = (deps: FreezeDeps, input: FreezeInput, actor: ActingPrincipal): Effect.Effect<PolicyFreezeOutput, FreezeError> =>
  Effect.gen(function* () {
    const { principals, scope } = yield* freezeTarget(input)
    const { ledger } = deps
    if (actor.class !== "human") return yield* refuseUnfreeze(ledger, principals, scope, input.principal ?? "agent or human", actor)
    const active = yield* deps.activeFreezes
    const targets = principals.filter((p) => exactly(active, p, scope) !== undefined)
    if (targets.length === 0) return yield* new NoMatchingFreeze({ principal: input.principal ?? "agent or human", scope })
    const recordedAt = yield* now
    const plans = targets.map((principal) => ({
      principal,
      planId: `unfreeze:${principal}:${recordedAt}`,
      reason: input.reason ?? `freeze of ${principal} on scope '${scope}' lifted by ${actor.class}(${actor.id})`
    }))
    const markerWrites = deps.settings.policy?.freeze_marker_writes === true ? deps.markerStore : undefined
    if (markerWrites !== undefined) {
      for (const plan of plans) {
        const id = randomUUID()
        yield* markerWrites.write("unfreeze", id, markerBody({ freeze_id: id, principal: plan.principal, scope, reason: plan.reason, created_at: recordedAt, plan_id: plan.planId }))
      }
    }
    const rows = yield* ledger.appendAll(plans.map((p) => freezeRow("unfreeze", p.principal, scope, p.reason, p.planId, actor)))
    const notes = notEnforced("unfreeze", targets, scope, deps.compiled.configured)
    return {
      command: "policy_unfreeze" as const,
      lifted: true,
      scope,
      recorded_at: recordedAt,
      entries: rows.map((row, i) => entryOf(row, plans[i]!.principal)),
      ...(notes.length === 0 ? {} : { notes })
    }
  })

/** What freeze and unfreeze read and write. */
export interface FreezeDeps {
  readonly settings: PolicySettings
  readonly compiled: CompiledPolicy
  readonly markerStore: FreezeMarkerStore | undefined
  readonly ledger: LedgerService
  readonly activeFreezes: Effect.Effect<ReadonlyArray<ActiveFreeze>, FreezeSourceUnreadable>
}

/** The engine's freeze and unfreeze operations over one ledger and marker tier. */
export const freezeOperations = (deps: FreezeDeps) => ({
  freeze: (input: FreezeInput, actor: ActingPrincipal) => freeze(deps, input, actor),
  unfreeze: (input: FreezeInput, actor: ActingPrincipal) => unfreeze(deps, input, actor)
})
