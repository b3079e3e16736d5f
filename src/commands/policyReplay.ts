import { Clock, Effect, Either } from "effect"
import type { PolicyReplayOutput, ReplayFlip } from "../schemas/policyReplay"
import { CAPABILITIES, type Capability } from "../schemas/policy"
import { Environment } from "../services/Environment/Environment"
import { Ledger } from "../services/Ledger/Ledger"
import { type ModelAttributes, ModelAttributesSource, toSubject } from "../services/PolicyEngine/attributes"
import { compilePolicy, effectRank, evaluate } from "../services/PolicyEngine/evaluate"
import { PolicyEngine } from "../services/PolicyEngine/PolicyEngine"
import { loadLazyConfigFile } from "../services/ProjectConfig/ProjectConfig"
import { parseSince } from "./since"
import { ProjectContext } from "../services/ProjectConfig/ProjectContext"

export interface PolicyReplayInput {
  /** The proposed pcli.toml; only its `[policy]` block is read. */
  readonly proposedConfig: string
  readonly since?: string | undefined
}

const KNOWN: ReadonlySet<string> = new Set(CAPABILITIES)

/** A model the project no longer has: policy sees only its name. */
const bare = (name: string): ModelAttributes => ({ name, tags: {}, classifications: [], contracted: false, reachableDownstreams: undefined })

const order = (a: ReplayFlip, b: ReplayFlip) =>
  Number(b.direction === "loosened") - Number(a.direction === "loosened") ||
  b.decisions - a.decisions ||
  a.principal.localeCompare(b.principal) ||
  a.capability.localeCompare(b.capability) ||
  a.model.localeCompare(b.model)

/**
 * `pcli policy replay --config <proposed>`: every recorded policy evaluation, re-evaluated statically
 * under the project's current policy and under the proposed one, with the same model attributes;
 * the decisions whose effect changes are flips. Grouped in SQL by (principal, capability, model),
 * so each distinct question is evaluated once. Reads only.
 */
export const policyReplay = (input: PolicyReplayInput) =>
  Effect.gen(function* () {
    const ledger = yield* Ledger
    const engine = yield* PolicyEngine
    const attributes = yield* ModelAttributesSource
    const { modelsDir } = yield* ProjectContext
    const now = yield* Clock.currentTimeMillis
    const since = input.since === undefined ? undefined : yield* Either.match(parseSince(input.since, now), { onLeft: Effect.fail, onRight: Effect.succeed })
    const proposedFile = yield* loadLazyConfigFile(input.proposedConfig, yield* Environment)
    const proposed = compilePolicy(proposedFile.settings.policy)
    const groups = yield* ledger.evaluationGroups(since)

    const notes: Array<string> = []
    const absent = new Set<string>()
    const subjects = new Map<string, { readonly attrs: ModelAttributes; readonly subject: ReturnType<typeof toSubject> }>()
    const subjectOf = (model: string) =>
      Effect.gen(function* () {
        const cached = subjects.get(model)
        if (cached !== undefined) return cached
        const resolved = yield* Effect.either(attributes.resolve(model, modelsDir))
        if (Either.isLeft(resolved)) {
          if (resolved.left._tag === "ModelAttributesUnavailable") {
            if (absent.size === 0) notes.push(`model attributes unavailable (${resolved.left.message}): models are replayed by name only`)
          }
          absent.add(model)
        }
        const attrs = Either.getOrElse(resolved, () => bare(model))
        const entry = { attrs, subject: toSubject(attrs) }
        subjects.set(model, entry)
        return entry
      })

    let evaluations = 0
    let skipped = 0
    let tightened = 0
    let loosened = 0
    const flips: Array<ReplayFlip> = []
    for (const g of groups) {
      evaluations += g.count
      if (g.capability === null || !KNOWN.has(g.capability) || g.model === null) {
        skipped += g.count
        continue
      }
      const capability = g.capability as Capability
      const { attrs, subject } = yield* subjectOf(g.model)
      const before = engine.check(g.principal, capability, attrs)
      const after = evaluate(proposed, g.principal, capability, subject)
      if (before.effect === after.effect) continue
      const direction = effectRank(after.effect) > effectRank(before.effect) ? "tightened" : "loosened"
      if (direction === "tightened") tightened += g.count
      else loosened += g.count
      flips.push({
        direction,
        principal: g.principal,
        capability,
        model: g.model,
        before: { effect: before.effect, rule_id: before.matched_rule },
        after: { effect: after.effect, rule_id: after.matched_rule },
        decisions: g.count,
        first_decision_ref: g.first_decision_ref,
        last_decision_ref: g.last_decision_ref
      })
    }
    if (absent.size > 0 && notes.length === 0) notes.push(`${absent.size} model(s) no longer in ${modelsDir} were replayed by name only`)
    if (skipped > 0) notes.push(`${skipped} evaluation(s) without a known capability were not replayed`)
    const out: PolicyReplayOutput = {
      command: "policy_replay",
      proposed_config: proposedFile.file,
      since: since?.toISOString() ?? null,
      evaluations,
      unchanged: evaluations - skipped - tightened - loosened,
      tightened,
      loosened,
      skipped,
      flips: flips.sort(order),
      notes
    }
    return out
  })
