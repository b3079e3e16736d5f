import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { productJournal } from "../commands/productJournal"
import { productList } from "../commands/productList"
import { productStatus } from "../commands/productStatus"
import { ProductJournalOutput, ProductListOutput, ProductStatusOutput } from "../schemas/products"
import { ProductWorkspace } from "../services/Products/workspace"

import { ServeApi } from "./api"
import { answer } from "./respond"

// As the CLI: these reads need a pcli.toml that loads (it may name the store's namespace).
const inWorkspace = <A, E, R>(read: (project: typeof ProductWorkspace.Service.project) => Effect.Effect<A, E, R>) =>
  Effect.flatMap(ProductWorkspace, (ws) => Effect.zipRight(ws.requireConfig, read(ws.project)))

/** GET /api/v1/products, /products/{name}, /products/{name}/journal: `pcli product list|status|journal`. */
export const ProductRoutes = HttpApiBuilder.group(ServeApi, "products", (handlers) =>
  handlers
    .handle("list", () => answer(ProductListOutput, inWorkspace((project) => productList({ project }))))
    .handle("status", ({ path }) => answer(ProductStatusOutput, inWorkspace((project) => productStatus({ project, name: path.name }))))
    .handle("journal", ({ path }) => answer(ProductJournalOutput, inWorkspace((project) => productJournal({ project, name: path.name }))))
)
