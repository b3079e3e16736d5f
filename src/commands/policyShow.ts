import { Effect } from "effect"
import type { PolicyShowOutput } from "../schemas/policy-output"
import { Ledger, type LedgerUnavailable } from "../services/Ledger/Ledger"
import { policyShow as policyView } from "../services/PolicyEngine/commands"
import type { FreezeSourceUnreadable } from "../services/PolicyEngine/errors"
import type { PolicyEngine } from "../services/PolicyEngine/PolicyEngine"

/** `policy show` (and the MCP `policy_show` tool): the policy in force and the ledger head hash to pin it by. */
export const policyShow: Effect.Effect<PolicyShowOutput, FreezeSourceUnreadable | LedgerUnavailable, PolicyEngine | Ledger> = Effect.gen(
  function* () {
    const view = yield* policyView
    const head = yield* Effect.flatMap(Ledger, (ledger) => ledger.headHash)
    return { ...view, ledger_head_hash: head }
  }
)
