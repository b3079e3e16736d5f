import type { ProductProject } from "../services/Products/files"
import { productJournal as journal } from "../services/Products/status"

export interface ProductJournalInput {
  readonly project: ProductProject
  readonly name: string
}

/** `product journal <name>`: rows in append order; read-only. */
export const productJournal = (input: ProductJournalInput) => journal(input.project, input.name)
