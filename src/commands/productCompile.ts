import { Effect } from "effect"
import { compileProduct } from "../services/Products/compile"
import { ProductWorkspace } from "../services/Products/workspace"

export interface ProductCompileInput {
  readonly name: string
}

/** `product compile <name>`: refuses unless verify passes, recovers a crashed commit, commits Phase A or B. */
export const productCompile = (input: ProductCompileInput) =>
  Effect.gen(function* () {
    const ws = yield* ProductWorkspace
    return yield* compileProduct(ws.project, input.name, ws.policy)
  })
