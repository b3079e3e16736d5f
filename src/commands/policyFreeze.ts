import { Effect } from "effect"
import type { PolicyFreezeOutput } from "../schemas/policy-output"
import type { FreezeError, FreezeInput } from "../services/PolicyEngine/freeze"
import { advanceWitness } from "../services/Governance/Governance"
import { PolicyEngine } from "../services/PolicyEngine/PolicyEngine"
import { Principal } from "../services/Principal/Principal"

export type { FreezeInput }

/**
 * `policy freeze`: any principal may freeze. A freeze already in force on the exact scope is
 * kept with its first reason (`already_frozen`); markers are written first, then every row in
 * one transaction, so a failed marker write records nothing.
 */
export const policyFreeze = (input: FreezeInput): Effect.Effect<PolicyFreezeOutput, FreezeError, PolicyEngine | Principal> =>
  Effect.flatMap(Effect.zip(PolicyEngine, Principal), ([engine, actor]) =>
    // The new head is witnessed in the warehouse the store governs (decisions 35), so deleting these rows is seen.
    Effect.tap(engine.freeze(input, actor), () => advanceWitness)
  )
