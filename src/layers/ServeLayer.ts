import { Layer } from "effect"
import * as Compiler from "../services/Project/compile"
import { CompileCacheWrites } from "../services/Project/cache"
import { makeServeReads } from "../services/Serve/ServeReads"
import { plansLayer } from "./GovernLayer"
import { ProductWorkspaceLayer } from "./ProductLayer"
import { ReadOnlyLayer } from "./PolicyLayer"
import type { GlobalOptions } from "./ProjectLayer"

/** Everything a served read needs: the read-only store, ledger, policy engine, products workspace; compiles never write their cache. */
const readLayer = (options: GlobalOptions) =>
  Layer.mergeAll(plansLayer, Compiler.layer, ProductWorkspaceLayer(options)).pipe(
    Layer.provideMerge(ReadOnlyLayer(options)),
    Layer.provideMerge(Layer.succeed(CompileCacheWrites, false))
  )

/** The server's reads (services/Serve/ServeReads.ts) over `readLayer`, rebuilt when pcli.toml or the store change. */
export const ServeReadsLayer = (options: GlobalOptions) => makeServeReads(options, readLayer(options))
