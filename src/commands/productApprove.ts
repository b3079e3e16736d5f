import { Effect } from "effect"
import { Principal } from "../services/Principal/Principal"
import { approveProduct } from "../services/Products/approve"
import { ProductWorkspace } from "../services/Products/workspace"

export interface ProductApproveInput {
  readonly name: string
}

/** `product approve <name>`: records approval of the current spec revision, attributed to the acting principal; needs a pcli.toml that loads. */
export const productApprove = (input: ProductApproveInput) =>
  Effect.gen(function* () {
    const ws = yield* ProductWorkspace
    yield* ws.requireConfig
    return yield* approveProduct(ws.project, input.name, yield* Principal)
  })
