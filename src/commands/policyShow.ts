import { Effect } from "effect"
import type { PolicyShowOutput } from "../schemas/policy-output"
import { Ledger, type LedgerUnavailable } from "../services/Ledger/Ledger"
import type { FreezeSourceUnreadable } from "../services/PolicyEngine/errors"
import { PolicyEngine } from "../services/PolicyEngine/PolicyEngine"

/** `policy show` (and `GET /api/v1/policy`): the policy in force and the ledger head hash to pin it by. */
export const policyShow: Effect.Effect<PolicyShowOutput, FreezeSourceUnreadable | LedgerUnavailable, PolicyEngine | Ledger> = Effect.gen(
  function* () {
    const view = yield* Effect.flatMap(PolicyEngine, (engine) => engine.show)
    const head = yield* Effect.flatMap(Ledger, (ledger) => ledger.headHash)
    return { command: "policy_show" as const, ...view, ledger_head_hash: head }
  }
)
