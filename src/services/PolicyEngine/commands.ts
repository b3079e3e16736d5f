import { Chunk, Clock, Effect, Stream } from "effect"
import { randomUUID } from "node:crypto"
import type {
  FreezeEntry,
  PolicyCheckOutput,
  PolicyFreezeOutput,
  PolicyShowOutput,
  PolicyTestOutput,
  PolicyTestResult,
  ShownRule
} from "../../schemas/policy-output"
import { CAPABILITIES, type Capability, type PolicyRule, type PolicyTestCase, type Principal } from "../../schemas/policy"
import { Ledger, type LedgerRow, type LedgerUnavailable, type NewLedgerRow, type PrincipalClass, type PrincipalIdSource } from "../Ledger/Ledger"
import { ModelAttributesSource, type ModelAttributesUnavailable, type ModelNotFound, toSubject } from "./attributes"
import { type ActiveFreeze, type FreezeMarkerBody, ledgerFreezes, markerFreezes } from "./dynamic"
import {
  type FreezeSourceUnreadable,
  InvalidCapability,
  InvalidPrincipal,
  NoMatchingFreeze,
  PolicyConfigMissing,
  PolicyNoScenarios,
  PolicyNotConfigured,
  PolicyScenariosFailed,
  ScenarioLayerInconsistent,
  SelectorTooLong,
  UnfreezeNeedsHuman
} from "./errors"
import { evaluate } from "./evaluate"
import type { MarkerWriteFailed } from "./markers"
import { PolicyEngine } from "./PolicyEngine"
import { type InvalidSelector, parseSelectorOption, InvalidSelector as InvalidSelectorError } from "./selector"

/** Who runs the command (resolved by the CLI from PCLI_PRINCIPAL / --principal-id / PCLI_PRINCIPAL_ID). */
export interface PrincipalContext {
  readonly class: PrincipalClass
  readonly id: string
  readonly idSource: PrincipalIdSource
}

export const parsePrincipal = (value: string): Effect.Effect<Principal, InvalidPrincipal> =>
  value === "human" || value === "agent" ? Effect.succeed(value) : Effect.fail(new InvalidPrincipal({ value }))

export const parseCapability = (value: string): Effect.Effect<Capability, InvalidCapability> =>
  (CAPABILITIES as ReadonlyArray<string>).includes(value)
    ? Effect.succeed(value as Capability)
    : Effect.fail(new InvalidCapability({ value }))

const sortedRecord = (record: Readonly<Record<string, string>>): Record<string, string> =>
  Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))

export interface PolicyCheckInput {
  readonly principal: string
  readonly capability: string
  readonly model: string
  /** `--models`, default `models`. */
  readonly modelsDir: string
}

/** `policy check`: the static verdict (freezes and budgets can only tighten it at enforcement). */
export const policyCheck = (
  input: PolicyCheckInput
): Effect.Effect<
  PolicyCheckOutput,
  InvalidPrincipal | InvalidCapability | ModelNotFound | ModelAttributesUnavailable,
  PolicyEngine | ModelAttributesSource
> =>
  Effect.gen(function* () {
    const principal = yield* parsePrincipal(input.principal)
    const capability = yield* parseCapability(input.capability)
    const engine = yield* PolicyEngine
    const source = yield* ModelAttributesSource
    const attrs = yield* source.resolve(input.model, input.modelsDir)
    const subject = toSubject(attrs)
    const declared = engine.check(principal, capability, attrs)
    // decisions.md item 31: the effect as the gate enforces it now, freezes and budgets applied.
    const outcome = yield* engine.gate(principal, capability, [attrs])
    const verdict = outcome._tag === "Evaluated" ? outcome.verdicts[0]! : declared
    return {
      command: "policy_check" as const,
      principal,
      capability,
      model: input.model,
      effect: verdict.effect,
      matched_rule: verdict.matched_rule,
      reason: verdict.reason,
      ...(verdict.effect === declared.effect ? {} : { declared_effect: declared.effect }),
      model_attributes: {
        tags: sortedRecord(subject.tags),
        classifications: [...subject.classifications].sort(),
        ...(subject.layer === undefined ? {} : { layer: subject.layer }),
        contracted: subject.contracted,
        downstreams: attrs.downstreams ?? 0,
        ...(subject.reachableDownstreams === undefined ? {} : { reachable_downstreams: subject.reachableDownstreams })
      }
    }
  })

/** Scenario attributes, reconciling `layer` with `tags.layer` as the live seam does. */
const scenarioSubject = (test: PolicyTestCase) => {
  const tagLayer = Object.prototype.hasOwnProperty.call(test.tags, "layer") ? test.tags["layer"] : undefined
  if (test.layer !== undefined && tagLayer !== undefined && test.layer !== tagLayer) {
    return Effect.fail(new ScenarioLayerInconsistent({ name: test.name, layer: test.layer, tagLayer }))
  }
  const layer = test.layer ?? tagLayer
  return Effect.succeed(
    toSubject({
      name: test.model,
      tags: layer === undefined ? test.tags : { ...test.tags, layer },
      classifications: test.classifications,
      contracted: test.contracted,
      layer,
      reachableDownstreams: test.reachable_downstreams
    })
  )
}

/** `policy test`: every `[[policy.tests]]` scenario through the real evaluator, in declaration order. */
export const policyTest: Effect.Effect<
  PolicyTestOutput,
  PolicyConfigMissing | PolicyNotConfigured | PolicyNoScenarios | ScenarioLayerInconsistent,
  PolicyEngine
> = Effect.gen(function* () {
  const engine = yield* PolicyEngine
  if (!engine.settings.configPresent) return yield* new PolicyConfigMissing()
  const block = engine.settings.policy
  if (block === undefined) return yield* new PolicyNotConfigured()
  if (block.tests.length === 0) return yield* new PolicyNoScenarios()
  const subjects = yield* Effect.forEach(block.tests, scenarioSubject)
  const results = block.tests.map((test, i): PolicyTestResult => {
    const verdict = evaluate(engine.compiled, test.principal, test.capability, subjects[i]!)
    return {
      name: test.name,
      passed: verdict.effect === test.expect,
      principal: test.principal,
      capability: test.capability,
      model: test.model,
      expected: test.expect,
      actual: verdict.effect,
      ...(verdict.matched_rule === null ? {} : { matched_rule: verdict.matched_rule }),
      reason: verdict.reason
    }
  })
  const passed = results.filter((r) => r.passed).length
  return { command: "policy_test" as const, total: results.length, passed, failed: results.length - passed, results }
})

/** After printing a `policy test` report: exit 1 when any scenario failed. */
export const failOnScenarioFailures = (output: PolicyTestOutput): Effect.Effect<void, PolicyScenariosFailed> =>
  output.failed > 0 ? Effect.fail(new PolicyScenariosFailed({ failed: output.failed, total: output.total })) : Effect.void

const showRule = (rule: PolicyRule, id: number): ShownRule => {
  const scope = rule.scope ?? {}
  return {
    id,
    principal: rule.principal,
    capability: rule.capability,
    effect: rule.effect,
    scope: {
      any: scope.any === true,
      models: [...(scope.models ?? [])],
      tags: { ...(scope.tags ?? {}) },
      classifications: [...(scope.classifications ?? [])],
      exclude_classifications: [...(scope.exclude_classifications ?? [])],
      ...(scope.contracted === undefined ? {} : { contracted: scope.contracted }),
      ...(scope.layer === undefined ? {} : { layer: scope.layer }),
      ...(scope.max_downstreams === undefined ? {} : { max_downstreams: scope.max_downstreams })
    },
    ...(rule.verify_after.length === 0 ? {} : { verify_after: [...rule.verify_after] }),
    ...(rule.autonomy_budget === undefined
      ? {}
      : { autonomy_budget: { failures: rule.autonomy_budget.failures, window: rule.autonomy_budget.window } })
  }
}

/** `policy show`: rules in file order, default agent effect, freezes in force, freeze sources. */
export const policyShow: Effect.Effect<PolicyShowOutput, FreezeSourceUnreadable, PolicyEngine> = Effect.gen(function* () {
  const engine = yield* PolicyEngine
  const block = engine.settings.policy
  const view = yield* engine.freezeView
  return {
    command: "policy_show" as const,
    configured: block !== undefined,
    policy_version: block === undefined ? null : block.version,
    default_agent_effect: engine.compiled.defaultAgentEffect,
    rules: (block?.rules ?? []).map(showRule),
    freezes: view.freezes.map((f) => ({ ...f })),
    freeze_sources: { ledger: view.sources.ledger, markers: view.sources.markers }
  }
})

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

const freezeRow = (direction: "freeze" | "unfreeze", principal: Principal, scope: string, reason: string, planId: string, actor: PrincipalContext): NewLedgerRow => ({
  kind: direction,
  principal: actor.class,
  principal_id: actor.id,
  principal_id_source: actor.idSource,
  target_principal: principal,
  capability: "apply",
  model: scope,
  effect: direction === "freeze" ? "deny" : "allow",
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
export const policyFreeze = (
  input: FreezeInput,
  actor: PrincipalContext
): Effect.Effect<PolicyFreezeOutput, FreezeError, PolicyEngine | Ledger> =>
  Effect.gen(function* () {
    const { principals, scope } = yield* freezeTarget(input)
    const engine = yield* PolicyEngine
    const ledger = yield* Ledger
    const inLedger = ledgerFreezes(yield* Effect.map(Stream.runCollect(ledger.query({ kinds: ["freeze", "unfreeze"] })), Chunk.toReadonlyArray))
    // Unreadable markers count as "not there": writing one more freeze marker is always safe.
    const inMarkers =
      engine.markerStore === undefined ? [] : yield* engine.markerStore.list.pipe(Effect.map(markerFreezes), Effect.orElseSucceed(() => []))
    const markerWrites = engine.settings.policy?.freeze_marker_writes === true ? engine.markerStore : undefined
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
      ...notEnforced("freeze", principals, scope, engine.compiled.configured)
    ]
    return {
      command: "policy_freeze" as const,
      lifted: false,
      scope,
      recorded_at: recordedAt,
      entries: rows.map((row, i) => entryOf(row, toRecord[i]!.principal)),
      ...(kept.length === 0 ? {} : { already_frozen: kept.map((f) => ({ ...f })) }),
      ...(notes.length === 0 ? {} : { notes })
    }
  })

/** An agent's unfreeze: one refusal row per named principal (one transaction), then `unfreeze-needs-human`. */
const refuseUnfreeze = (principals: ReadonlyArray<Principal>, scope: string, label: string, actor: PrincipalContext) =>
  Effect.gen(function* () {
    const ledger = yield* Ledger
    const recordedAt = yield* now
    const written = yield* Effect.either(
      ledger.appendAll(
        principals.map((principal) => ({
          kind: "refusal" as const,
          principal: actor.class,
          principal_id: actor.id,
          principal_id_source: actor.idSource,
          target_principal: principal,
          capability: "apply",
          model: scope,
          effect: "deny" as const,
          rule_id: null,
          plan_id: `unfreeze-refused:${principal}:${recordedAt}`,
          reason: `unfreeze of ${principal} on scope '${scope}' refused: only a human may lift a freeze (asked by ${actor.class}(${actor.id}))`
        }))
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
export const policyUnfreeze = (
  input: FreezeInput,
  actor: PrincipalContext
): Effect.Effect<PolicyFreezeOutput, FreezeError, PolicyEngine | Ledger> =>
  Effect.gen(function* () {
    const { principals, scope } = yield* freezeTarget(input)
    if (actor.class !== "human") return yield* refuseUnfreeze(principals, scope, input.principal ?? "agent or human", actor)
    const engine = yield* PolicyEngine
    const ledger = yield* Ledger
    const active = yield* engine.activeFreezes
    const targets = principals.filter((p) => exactly(active, p, scope) !== undefined)
    if (targets.length === 0) return yield* new NoMatchingFreeze({ principal: input.principal ?? "agent or human", scope })
    const recordedAt = yield* now
    const plans = targets.map((principal) => ({
      principal,
      planId: `unfreeze:${principal}:${recordedAt}`,
      reason: input.reason ?? `freeze of ${principal} on scope '${scope}' lifted by ${actor.class}(${actor.id})`
    }))
    const markerWrites = engine.settings.policy?.freeze_marker_writes === true ? engine.markerStore : undefined
    if (markerWrites !== undefined) {
      for (const plan of plans) {
        const id = randomUUID()
        yield* markerWrites.write("unfreeze", id, markerBody({ freeze_id: id, principal: plan.principal, scope, reason: plan.reason, created_at: recordedAt, plan_id: plan.planId }))
      }
    }
    const rows = yield* ledger.appendAll(plans.map((p) => freezeRow("unfreeze", p.principal, scope, p.reason, p.planId, actor)))
    const notes = notEnforced("unfreeze", targets, scope, engine.compiled.configured)
    return {
      command: "policy_unfreeze" as const,
      lifted: true,
      scope,
      recorded_at: recordedAt,
      entries: rows.map((row, i) => entryOf(row, plans[i]!.principal)),
      ...(notes.length === 0 ? {} : { notes })
    }
  })
