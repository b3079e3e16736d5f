import { Effect } from "effect"
import type { PolicyFreezeOutput } from "../schemas/policy-output"
import type { FreezeError, FreezeInput } from "../services/PolicyEngine/freeze"
import { PolicyEngine } from "../services/PolicyEngine/PolicyEngine"
import { Principal } from "../services/Principal/Principal"

export type { FreezeInput }

/** The acting principal as the engine records it on a freeze row. */
export const freezeActor = Effect.map(Principal, (actor) => ({ class: actor.class, id: actor.id, idSource: actor.source }))

/**
 * `policy freeze`: any principal may freeze. A freeze already in force on the exact scope is
 * kept with its first reason (`already_frozen`); markers are written first, then every row in
 * one transaction, so a failed marker write records nothing.
 */
export const policyFreeze = (input: FreezeInput): Effect.Effect<PolicyFreezeOutput, FreezeError, PolicyEngine | Principal> =>
  Effect.flatMap(Effect.zip(PolicyEngine, freezeActor), ([engine, actor]) => engine.freeze(input, actor))
