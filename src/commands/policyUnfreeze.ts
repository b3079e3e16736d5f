import { Effect } from "effect"
import type { PolicyFreezeOutput } from "../schemas/policy-output"
import type { FreezeError, FreezeInput } from "../services/PolicyEngine/freeze"
import { advanceWitness } from "../services/Governance/Governance"
import { PolicyEngine } from "../services/PolicyEngine/PolicyEngine"
import { Principal } from "../services/Principal/Principal"

/** `policy unfreeze`: humans only (an agent's attempt is recorded as a refusal); exact (principal, scope) matches. */
export const policyUnfreeze = (input: FreezeInput): Effect.Effect<PolicyFreezeOutput, FreezeError, PolicyEngine | Principal> =>
  Effect.flatMap(Effect.zip(PolicyEngine, Principal), ([engine, actor]) =>
    // The new head is witnessed in the warehouse the store governs (decisions 35), so deleting these rows is seen.
    Effect.tap(engine.unfreeze(input, actor), () => advanceWitness)
  )
