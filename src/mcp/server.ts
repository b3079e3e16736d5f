import { McpServerLayer } from "../layers/McpLayer"
import type { GlobalOptions } from "../layers/ProjectLayer"
import { authoringTools } from "./authoring"
import { governanceTools } from "./governance"
import { projectTools } from "./project"
import { reportTools } from "./reports"
import { registerTools } from "./tool"

export const tools = [...projectTools, ...governanceTools, ...reportTools, ...authoringTools]

/** `pcli mcp`: the tools over stdio, on services built once for the server's life. Ends when stdin closes. */
export const mcpServer = (options: GlobalOptions, profile: string, version: string) =>
  McpServerLayer(options, profile, version, registerTools(tools))
