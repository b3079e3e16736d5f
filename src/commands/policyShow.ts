import { Effect } from "effect"
import type { PolicyShowOutput } from "../schemas/policy-output"
import { Ledger } from "../services/Ledger/Ledger"
import { policyShow as shownPolicy } from "../services/PolicyEngine/commands"

/** `pcli policy show` and `GET /api/v1/policy`: the policy as the engine reads it, with the ledger head to pin. */
export const policyShow = Effect.gen(function* () {
  const shown = yield* shownPolicy
  const out: PolicyShowOutput = { ...shown, ledger_head_hash: yield* Effect.flatMap(Ledger, (l) => l.headHash) }
  return out
})
