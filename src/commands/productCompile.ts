import { compileProduct } from "../services/Products/compile"
import type { ProductProject } from "../services/Products/files"
import type { PolicySource } from "../services/Products/verify"

export interface ProductCompileInput {
  readonly project: ProductProject
  readonly name: string
  readonly policy: PolicySource
}

/** `product compile <name>`: refuses unless verify passes, recovers a crashed commit, commits Phase A or B. */
export const productCompile = (input: ProductCompileInput) =>
  compileProduct(input.project, input.name, input.policy)
