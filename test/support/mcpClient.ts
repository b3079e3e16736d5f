import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { execFileSync } from "node:child_process"
import { PCLI_BIN } from "./cli"

/** Makes `cwd` a git repository whose one commit holds every file (works with no git identity configured). */
export const commitAll = (cwd: string) => {
  const git = (...args: Array<string>) => execFileSync("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", ...args], { cwd, stdio: ["ignore", "pipe", "pipe"] })
  git("init", "-q")
  git("add", ".")
  git("commit", "-qm", "base")
}

/** The official MCP client connected to `pcli mcp --profile ci` in `cwd`, with only PATH, HOME and `env` in its environment. */
export const connectMcp = async (cwd: string, env: Record<string, string> = {}) => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [PCLI_BIN, "mcp", "--profile", "ci"],
    cwd,
    env: { PATH: process.env["PATH"] ?? "", HOME: process.env["HOME"] ?? "", ...env },
    stderr: "pipe"
  })
  const client = new Client({ name: "pcli-test", version: "1.0.0" })
  await client.connect(transport)
  return { client, transport }
}
