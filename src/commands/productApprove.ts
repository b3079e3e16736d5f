import { Effect } from "effect"
import { Principal } from "../services/Principal/Principal"
import { approveProduct } from "../services/Products/approve"
import type { ProductProject } from "../services/Products/files"

export interface ProductApproveInput {
  readonly project: ProductProject
  readonly name: string
}

/** `product approve <name>`: records approval of the current spec revision, attributed to the acting principal. */
export const productApprove = (input: ProductApproveInput) =>
  Effect.flatMap(Principal, (actor) => approveProduct(input.project, input.name, actor))
