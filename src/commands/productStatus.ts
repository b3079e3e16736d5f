import { Effect } from "effect"
import type { ProductStatusOutput } from "../schemas/products"
import { requireKnown, statusEntry } from "../services/Products/status"
import { ProductWorkspace } from "../services/Products/workspace"

export interface ProductStatusInput {
  readonly name: string
}

/** `product status <name>`: read-only; needs a pcli.toml that loads; an unknown product is `product_not_found`. */
export const productStatus = (input: ProductStatusInput) =>
  Effect.gen(function* () {
    const ws = yield* ProductWorkspace
    yield* ws.requireConfig
    yield* requireKnown(ws.project, input.name)
    const entry = yield* statusEntry(ws.project, input.name)
    return { command: "product_status", ...entry } satisfies ProductStatusOutput
  })
