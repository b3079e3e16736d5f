import { McpServer } from "@effect/ai"
import { NodeSink, NodeStream } from "@effect/platform-node"
import { Layer } from "effect"
import { McpLayer } from "../layers/McpLayer"
import type { GlobalOptions } from "../layers/ProjectLayer"
import { authoringTools } from "./authoring"
import { governanceTools } from "./governance"
import { projectTools } from "./project"
import { reportTools } from "./reports"
import { registerTools } from "./tool"

export const tools = [...projectTools, ...governanceTools, ...reportTools, ...authoringTools]

/** `pcli mcp`: the tools over stdio, on services built once for the server's life. Ends when stdin closes. */
export const mcpServer = (options: GlobalOptions, profile: string, version: string) =>
  Layer.effectDiscard(registerTools(tools)).pipe(
    Layer.provide(McpServer.layerStdio({ name: "pcli", version, stdin: NodeStream.stdin, stdout: NodeSink.stdout })),
    Layer.provide(McpLayer(options, profile))
  )
