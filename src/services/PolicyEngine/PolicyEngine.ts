import { FileSystem, Path } from "@effect/platform"
import { Clock, Context, Effect, Either, Layer } from "effect"
import type { LedgerSourceMode, MarkerSourceMode } from "../../schemas/policy-output"
import type { PolicyFreezeOutput } from "../../schemas/policy-output"
import type { Capability, ClassificationsBlock, MaskBlock, PolicyBlock, PolicyRule, Principal } from "../../schemas/policy"
import { windowMillis } from "../../schemas/policy"
import { Ledger, type LedgerRow } from "../Ledger/Ledger"
import { type ModelAttributes, toSubject } from "./attributes"
import { type ActiveFreeze, applyDynamic, ledgerFreezes, markerFreezes } from "./dynamic"
import { FreezeSourceUnreadable } from "./errors"
import { compilePolicy, evaluate, type Verdict } from "./evaluate"
import { type FreezeError, type FreezeInput, freezeOperations } from "./freeze"
import type { ActingPrincipal } from "../Principal/Principal"
import { markerStoreForUrl } from "./markers"
import { type ScopeReads, scopeReadsOf } from "./scopeReads"
import { runScenarios, type ScenarioError, type ScenarioReport } from "./scenarios"
import { type PolicyView, policyView } from "./show"

/** Where the decision ledger lives: a local SQLite file, or a remote backend read through its local mirror. */
export type LedgerLocation = { readonly kind: "local"; readonly path: string } | { readonly kind: "remote" }

/** What the engine is built from; the lead fills it from pcli.toml and the global flags. */
export interface PolicySettings {
  /** False when pcli.toml does not exist (check: default posture; test: "needs a [policy] block"). */
  readonly configPresent: boolean
  readonly policy: PolicyBlock | undefined
  readonly mask?: MaskBlock | undefined
  readonly classifications?: ClassificationsBlock | undefined
  readonly ledger: LedgerLocation
  /** `[state]` object store URL: the object tier where durable freeze markers live. */
  readonly objectStoreUrl?: string | undefined
}

export interface ModelVerdict extends Verdict {
  readonly model: string
  /** The static verdict before freezes and budgets (its `matched_rule` is the one to record). */
  readonly static: Verdict
}

export type GateOutcome =
  | { readonly _tag: "NotConfigured" }
  | { readonly _tag: "Evaluated"; readonly verdicts: ReadonlyArray<ModelVerdict> }

export interface FreezeView {
  readonly freezes: ReadonlyArray<ActiveFreeze>
  readonly sources: { readonly ledger: LedgerSourceMode; readonly markers: MarkerSourceMode }
}

export interface PolicyEngineService {
  /** True when pcli.toml has a `[policy]` block (otherwise nothing is enforced). */
  readonly configured: boolean
  /** The rule at a position in file order (its `verify_after` checks, for apply). */
  readonly rule: (id: number) => PolicyRule | undefined
  /** The attributes the rules' scopes read (a change to one is `schema_change.breaking`). */
  readonly scopeReads: ScopeReads
  /** Static evaluation only (check, test): freezes and budgets can only tighten it. */
  readonly check: (principal: Principal, capability: Capability, model: ModelAttributes) => Verdict
  /**
   * The enforcement gate: `NotConfigured` without a `[policy]` block (nothing is read);
   * otherwise static + dynamic per model. An unreadable ledger or marker tier forces agents to deny.
   */
  readonly gate: (
    principal: Principal,
    capability: Capability,
    models: ReadonlyArray<ModelAttributes>
  ) => Effect.Effect<GateOutcome>
  /** `policy show`: rules in file order, default agent effect, freezes in force and their sources. */
  readonly show: Effect.Effect<PolicyView, FreezeSourceUnreadable>
  /** `policy test`: every `[[policy.tests]]` scenario through the evaluator. */
  readonly test: Effect.Effect<ScenarioReport, ScenarioError>
  /** Any principal may freeze; what is already in force is kept with its first reason. */
  readonly freeze: (input: FreezeInput, actor: ActingPrincipal) => Effect.Effect<PolicyFreezeOutput, FreezeError>
  /** Humans only; lifts freezes whose (principal, scope) match exactly. */
  readonly unfreeze: (input: FreezeInput, actor: ActingPrincipal) => Effect.Effect<PolicyFreezeOutput, FreezeError>
}

export class PolicyEngine extends Context.Tag("pcli/PolicyEngine")<PolicyEngine, PolicyEngineService>() {}


export const make = (settings: PolicySettings) =>
  Effect.gen(function* () {
    const ledger = yield* Ledger
    const fs = yield* FileSystem.FileSystem
    const compiled = compilePolicy(settings.policy)
    const markerStore = settings.objectStoreUrl === undefined ? undefined : yield* markerStoreForUrl(settings.objectStoreUrl)

    const ledgerUnreadable = (location: string, detail: string) => new FreezeSourceUnreadable({ source: "ledger", location, detail })

    /** `absent` when the local store file is proven missing; a dangling link or stat failure is an error. */
    const probeLedger: Effect.Effect<"present" | "absent", FreezeSourceUnreadable> =
      settings.ledger.kind === "remote"
        ? Effect.succeed("present")
        : ((path: string) =>
            fs.stat(path).pipe(
              Effect.as("present" as const),
              Effect.catchAll((error) =>
                error._tag === "SystemError" && error.reason === "NotFound"
                  ? fs.readLink(path).pipe(
                      Effect.matchEffect({
                        onFailure: () => Effect.succeed("absent" as const),
                        onSuccess: (target) => Effect.fail(ledgerUnreadable(path, `dangling symlink to ${target}`))
                      })
                    )
                  : Effect.fail(ledgerUnreadable(path, error.message))
              )
            ))(settings.ledger.path)

    const ledgerLocation = settings.ledger.kind === "local" ? settings.ledger.path : "the local mirror of the remote state store"

    const readLedgerFreezes = (mode: "read" | "local_mirror"): Effect.Effect<{ readonly mode: LedgerSourceMode; readonly freezes: ReadonlyArray<ActiveFreeze> }, FreezeSourceUnreadable> =>
      ledger.list({ kinds: ["freeze", "unfreeze"] }).pipe(
        Effect.map((rows) => ({ mode, freezes: ledgerFreezes(rows) })),
        Effect.mapError((e) => ledgerUnreadable(ledgerLocation, e.detail))
      )

    type SourceRead<M> = { readonly mode: M; readonly freezes: ReadonlyArray<ActiveFreeze> }
    const ledgerView: Effect.Effect<SourceRead<LedgerSourceMode>, FreezeSourceUnreadable> = Effect.flatMap(probeLedger, (presence) =>
      presence === "absent"
        ? Effect.succeed<SourceRead<LedgerSourceMode>>({ mode: "absent", freezes: [] })
        : readLedgerFreezes(settings.ledger.kind === "remote" ? "local_mirror" : "read")
    )

    const markerView: Effect.Effect<SourceRead<MarkerSourceMode>, FreezeSourceUnreadable> =
      markerStore === undefined
        ? Effect.succeed({ mode: "not_configured" as const, freezes: [] as ReadonlyArray<ActiveFreeze> })
        : markerStore.list.pipe(
            Effect.map((objects) => ({ mode: "read" as const, freezes: markerFreezes(objects) })),
            Effect.mapError((e) => new FreezeSourceUnreadable({ source: "markers", location: e.location, detail: e.detail }))
          )

    const allFreezes = Effect.map(Effect.all([ledgerView, markerView]), ([l, m]) => ({ l, m }))

    const freezeView: Effect.Effect<FreezeView, FreezeSourceUnreadable> = compiled.configured
      ? Effect.map(allFreezes, ({ l, m }) => ({
          freezes: [...l.freezes, ...m.freezes],
          sources: { ledger: l.mode, markers: m.mode }
        }))
      : Effect.succeed({ freezes: [], sources: { ledger: "not_consulted", markers: "not_consulted" } })

    const activeFreezes = Effect.map(allFreezes, ({ l, m }) => [...l.freezes, ...m.freezes])

    const maxBudgetWindow = compiled.rules.reduce(
      (max, r) => Math.max(max, r.rule.autonomy_budget === undefined ? 0 : windowMillis(r.rule.autonomy_budget.window) ?? 0),
      0
    )

    /** Freeze rows, plus (when any rule has a budget) failed verifications in the widest window and their plans' evaluations. */
    const snapshot = (now: Date) =>
      Effect.gen(function* () {
        const freezeRows = yield* ledger.list({ kinds: ["freeze", "unfreeze"] })
        if (maxBudgetWindow === 0) return freezeRows
        const verifications = yield* ledger.list({ kinds: ["verification"], since: new Date(now.getTime() - maxBudgetWindow) })
        const failedPlans = [...new Set(verifications.filter((r) => r.effect === "deny" && r.plan_id !== null).map((r) => r.plan_id!))]
        // One read for every failed plan's evaluations (budgetFailures counts plans, in any row order).
        const evaluations = failedPlans.length === 0 ? [] : yield* ledger.list({ planIds: failedPlans, kinds: ["evaluation"] })
        return [...freezeRows, ...verifications, ...evaluations] as ReadonlyArray<LedgerRow>
      })

    const gate = (principal: Principal, capability: Capability, models: ReadonlyArray<ModelAttributes>) =>
      Effect.gen(function* () {
        if (!compiled.configured) return { _tag: "NotConfigured" } as GateOutcome
        const now = new Date(yield* Clock.currentTimeMillis)
        const rows = yield* Effect.either(snapshot(now))
        const markers = markerStore === undefined ? Either.right([] as ReadonlyArray<ActiveFreeze>) : yield* Effect.either(Effect.map(markerStore.list, markerFreezes))
        const failClosed =
          Either.isLeft(rows) ? "the decision ledger is unreadable" : Either.isLeft(markers) ? "the freeze markers are unreadable" : undefined
        const rowList = Either.getOrElse(rows, () => [] as ReadonlyArray<LedgerRow>)
        const freezes = [...ledgerFreezes(rowList), ...Either.getOrElse(markers, () => [] as ReadonlyArray<ActiveFreeze>)]
        const verdicts = models.map((model): ModelVerdict => {
          const subject = toSubject(model)
          const base = evaluate(compiled, principal, capability, subject)
          if (capability === "read") return { model: model.name, static: base, ...base }
          if (failClosed !== undefined && principal === "agent") {
            return { model: model.name, static: base, effect: "deny", matched_rule: base.matched_rule, reason: `${base.reason}; ${failClosed} — agent mutation forced to deny` }
          }
          const tightened = applyDynamic(base, { policy: compiled, principal, subject, freezes, rows: rowList, now })
          return { model: model.name, static: base, ...tightened }
        })
        return { _tag: "Evaluated", verdicts } as GateOutcome
      })

    const { freeze, unfreeze } = freezeOperations({ settings, compiled, markerStore, ledger, activeFreezes })

    return PolicyEngine.of({
      configured: compiled.configured,
      rule: (id) => compiled.rules[id]?.rule,
      scopeReads: scopeReadsOf(settings.policy),
      check: (principal, capability, model) => evaluate(compiled, principal, capability, toSubject(model)),
      gate,
      show: Effect.map(freezeView, (view) => policyView(settings.policy, compiled, view)),
      test: runScenarios(settings, compiled),
      freeze,
      unfreeze
    })
  })

/** The live engine for one loaded configuration (scoped: the marker store's clients close with it). */
export const layer = (settings: PolicySettings): Layer.Layer<PolicyEngine, never, Ledger | FileSystem.FileSystem | Path.Path> =>
  Layer.scoped(PolicyEngine, make(settings))
