import { Effect } from "effect"
import { productJournal as journal } from "../services/Products/status"
import { ProductWorkspace } from "../services/Products/workspace"

export interface ProductJournalInput {
  readonly name: string
}

/** `product journal <name>`: rows in append order; read-only; needs a pcli.toml that loads (it may name the store's namespace). */
export const productJournal = (input: ProductJournalInput) =>
  Effect.flatMap(ProductWorkspace, (ws) => Effect.zipRight(ws.requireConfig, journal(ws.project, input.name)))
