import { Effect } from "effect"
import { listProducts } from "../services/Products/status"
import { ProductWorkspace } from "../services/Products/workspace"

/** `product list`: every known product, sorted by name; read-only; needs a pcli.toml that loads. */
export const productList = Effect.flatMap(ProductWorkspace, (ws) => Effect.zipRight(ws.requireConfig, listProducts(ws.project)))
