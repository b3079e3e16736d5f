import { Effect } from "effect"
import { Ledger } from "../services/Ledger/Ledger"
import { refusalRow } from "../services/Plans/ledgerRows"
import { Principal } from "../services/Principal/Principal"
import { approveProduct } from "../services/Products/approve"
import { ProductApprovalNeedsHuman } from "../services/Products/errors"
import { ProductWorkspace } from "../services/Products/workspace"

export interface ProductApproveInput {
  readonly name: string
}

/**
 * `product approve <name>`: records approval of the current spec revision, attributed to the acting
 * principal; needs a pcli.toml that loads. Human only: an agent's attempt is refused and recorded.
 */
export const productApprove = (input: ProductApproveInput) =>
  Effect.gen(function* () {
    const ws = yield* ProductWorkspace
    yield* ws.requireConfig
    const actor = yield* Principal
    if (actor.class !== "human") {
      const error = new ProductApprovalNeedsHuman({ product: input.name })
      yield* Effect.flatMap(Ledger, (ledger) => ledger.append(refusalRow({ actor, principal: actor.class, capability: null, planId: null, error })))
      return yield* error
    }
    return yield* approveProduct(ws.project, input.name, actor)
  })
