import { McpServer } from "@effect/ai"
import { NodeSink, NodeStream } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { makeFramer } from "../mcp/framing"
import { mcpPrincipal, Principal } from "../services/Principal/Principal"
import * as Compiler from "../services/Project/compile"
import * as RunStore from "../services/Runner/RunStore"
import { watchedModelAttributesLayer } from "../services/Project/policyAttributes"
import { resolveProject } from "../services/ProjectConfig/ProjectContext"
import { plansLayer } from "./GovernLayer"
import { ProductWorkspaceLayer } from "./ProductLayer"
import { policyLayer } from "./PolicyQueryLayer"
import { projectContextLayer } from "./ProjectContextLayer"
import { type GlobalOptions, stateLayer } from "./ProjectLayer"

/** The acting principal under `pcli mcp`: always agent `mcp-<profile>` (decisions.md 26). */
const mcpProjectLayer = (options: GlobalOptions, profile: string) =>
  projectContextLayer(resolveProject(options, true), true).pipe(Layer.provideMerge(Layer.effect(Principal, mcpPrincipal(profile))))

/**
 * Everything the MCP tools use, built once for the server's life: the project as resolved at
 * start, the store opened for writing (the write tools record ledger rows), policy, plans.
 */
export const McpLayer = (options: GlobalOptions, profile: string) =>
  Layer.mergeAll(plansLayer, Compiler.layer, policyLayer, watchedModelAttributesLayer, ProductWorkspaceLayer(options)).pipe(
    Layer.provideMerge(RunStore.layer),
    Layer.provideMerge(stateLayer("write")),
    Layer.provideMerge(mcpProjectLayer(options, profile))
  )

/** The stdio MCP server: `register` adds the tools, on `McpLayer`'s services built once for the server's life. */
export const McpServerLayer = <E, R>(
  options: GlobalOptions,
  profile: string,
  version: string,
  register: Effect.Effect<void, E, R>
) =>
  Layer.effectDiscard(register).pipe(
    Layer.provide(
      Layer.unwrapEffect(
        Effect.sync(() => {
          // Every line is screened before the library reads it, and every answer carries the client's id.
          const framer = makeFramer()
          return McpServer.layerStdio({ name: "pcli", version, stdin: framer.input(NodeStream.stdin), stdout: framer.output(NodeSink.stdout) })
        })
      )
    ),
    Layer.provide(McpLayer(options, profile))
  )
