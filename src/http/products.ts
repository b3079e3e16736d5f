import { HttpApiBuilder } from "@effect/platform"
import { productJournal } from "../commands/productJournal"
import { productList } from "../commands/productList"
import { productStatus } from "../commands/productStatus"
import { ProductJournalOutput, ProductListOutput, ProductStatusOutput } from "../schemas/products"
import { ServeApi } from "./api"
import { answer } from "./respond"

/** GET /api/v1/products, /products/{name}, /products/{name}/journal: `pcli product list|status|journal`. */
export const ProductRoutes = HttpApiBuilder.group(ServeApi, "products", (handlers) =>
  handlers
    .handle("list", () => answer(ProductListOutput, productList))
    .handle("status", ({ path }) => answer(ProductStatusOutput, productStatus({ name: path.name })))
    .handle("journal", ({ path }) => answer(ProductJournalOutput, productJournal({ name: path.name })))
)
