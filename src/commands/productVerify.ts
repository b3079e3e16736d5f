import { Effect } from "effect"
import type { ProductVerifyOutput } from "../schemas/products"
import { verifyExitCode, verifyProduct } from "../services/Products/verify"
import { ProductWorkspace } from "../services/Products/workspace"

export interface ProductVerifyInput {
  readonly name: string
}

/** `product verify <name>`: writes nothing; a missing or broken pcli.toml is an input, not a failure. The status maps to the exit code with `verifyExitCode`. */
export const productVerify = (input: ProductVerifyInput) =>
  Effect.flatMap(ProductWorkspace, (ws) => Effect.map(verifyProduct(ws.project, input.name, ws.policy), (r): ProductVerifyOutput => r.output))

export { verifyExitCode }
