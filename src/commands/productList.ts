import type { ProductProject } from "../services/Products/files"
import { listProducts } from "../services/Products/status"

/** `product list`: every known product, sorted by name; read-only. */
export const productList = (input: { readonly project: ProductProject }) => listProducts(input.project)
