import { Effect } from "effect"
import type { PolicyCheckOutput } from "../schemas/policy-output"
import { ModelAttributesSource, type ModelAttributesUnavailable, type ModelNotFound, toSubject } from "../services/PolicyEngine/attributes"
import type { InvalidCapability, InvalidPrincipal } from "../services/PolicyEngine/errors"
import { parseCapability, parsePrincipal } from "../services/PolicyEngine/input"
import { PolicyEngine } from "../services/PolicyEngine/PolicyEngine"
import { ProjectContext } from "../services/ProjectConfig/ProjectContext"

export interface PolicyCheckInput {
  readonly principal: string
  readonly capability: string
  readonly model: string
}

const sortedRecord = (record: Readonly<Record<string, string>>): Record<string, string> =>
  Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))

/** `policy check`: the effect the gate enforces now, with the declared (static) effect when they differ. */
export const policyCheck = (
  input: PolicyCheckInput
): Effect.Effect<
  PolicyCheckOutput,
  InvalidPrincipal | InvalidCapability | ModelNotFound | ModelAttributesUnavailable,
  PolicyEngine | ModelAttributesSource | ProjectContext
> =>
  Effect.gen(function* () {
    const { modelsDir } = yield* ProjectContext
    const principal = yield* parsePrincipal(input.principal)
    const capability = yield* parseCapability(input.capability)
    const engine = yield* PolicyEngine
    const source = yield* ModelAttributesSource
    const attrs = yield* source.resolve(input.model, modelsDir)
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
