import type { ProductVerifyOutput } from "../schemas/products"
import type { ProductProject } from "../services/Products/files"
import { type PolicySource, verifyExitCode, verifyProduct } from "../services/Products/verify"
import { Effect } from "effect"

export interface ProductVerifyInput {
  readonly project: ProductProject
  readonly name: string
  readonly policy: PolicySource
}

/** `product verify <name>`: writes nothing. The status maps to the exit code with `verifyExitCode`. */
export const productVerify = (input: ProductVerifyInput) =>
  Effect.map(verifyProduct(input.project, input.name, input.policy), (r): ProductVerifyOutput => r.output)

export { verifyExitCode }
