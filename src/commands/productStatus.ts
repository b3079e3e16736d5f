import { Effect } from "effect"
import type { ProductStatusOutput } from "../schemas/products"
import type { ProductProject } from "../services/Products/files"
import { requireKnown, statusEntry } from "../services/Products/status"

export interface ProductStatusInput {
  readonly project: ProductProject
  readonly name: string
}

/** `product status <name>`: read-only; an unknown product is `product_not_found`. */
export const productStatus = (input: ProductStatusInput) =>
  Effect.gen(function* () {
    yield* requireKnown(input.project, input.name)
    const entry = yield* statusEntry(input.project, input.name)
    return { command: "product_status", ...entry } satisfies ProductStatusOutput
  })
