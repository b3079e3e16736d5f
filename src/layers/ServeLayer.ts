import * as NodeCommandExecutor from "@effect/platform-node/NodeCommandExecutor"
import { Layer } from "effect"
import * as Compiler from "../services/Project/compile"
import { CompileCacheWrites } from "../services/Project/cache"
import * as RunStore from "../services/Runner/RunStore"
import { servedPaths } from "../commands/serve"
import { makeChangeFeed } from "../services/Serve/ChangeFeed"
import { makeServeReads } from "../services/Serve/ServeReads"
import { plansLayer } from "./GovernLayer"
import { ProductWorkspaceLayer } from "./ProductLayer"
import { ReadOnlyLayer } from "./PolicyLayer"
import type { GlobalOptions } from "./ProjectLayer"

/** Everything a served read needs: the read-only store, ledger, policy engine, products workspace, runs; compiles never write their cache. */
const readLayer = (options: GlobalOptions) =>
  Layer.mergeAll(plansLayer, Compiler.layer, ProductWorkspaceLayer(options), RunStore.layer, NodeCommandExecutor.layer).pipe(
    Layer.provideMerge(ReadOnlyLayer(options)),
    Layer.provideMerge(Layer.succeed(CompileCacheWrites, false))
  )

/** The server's reads (services/Serve/ServeReads.ts) over `readLayer`, rebuilt when pcli.toml or the store change. */
export const ServeReadsLayer = (options: GlobalOptions) => makeServeReads(options, readLayer(options))

/** The change feed of `/api/v1/events`, over the folders the read context names. */
export const ChangeFeedLayer = (options: GlobalOptions) => makeChangeFeed(servedPaths(options.cwd))
