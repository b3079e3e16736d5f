import { Command } from "@effect/cli"
import { auditCommand } from "./audit"
import { briefCommand } from "./brief"
import { commandTree } from "./commandTree"
import { discoverCommand } from "./discover"
import { docsCommand } from "./docs"
import { governCommands } from "./govern"
import { mcpCommand } from "./mcp"
import { historyCommand } from "./history"
import { inspectCommands } from "./inspect"
import { showCommand } from "./show"
import { described } from "./help"
import { pipelineCommands } from "./pipeline"
import { policyCommand } from "./policy"
import { productCommand } from "./product"
import { reclaimCommands } from "./reclaim"
import { serveCommand } from "./serve"
import { stateCommand } from "./state"
import { branchCommand } from "./branch"
import { validateCommand } from "./validate"

const topLevel = [validateCommand, ...pipelineCommands, ...inspectCommands, historyCommand, showCommand, ...governCommands, ...reclaimCommands, discoverCommand, policyCommand, productCommand, branchCommand, stateCommand, auditCommand, briefCommand, mcpCommand, serveCommand, docsCommand] as const

export const rootCommand = Command.make("pcli").pipe(
  Command.withDescription(
    described(
      "A pipeline tool for SQL warehouses: run models, govern agents, reclaim artifacts",
      "pcli playground demo && pcli run --config demo/pcli.toml",
      "Exit codes: 0 success; 1 a runtime error, a refusal, or a malformed flag value (error[invalid-<flag>], e.g. history --last 0); 2 a usage error: an unknown flag, flags that conflict, a flag missing its partner (error[usage])."
    )
  ),
  Command.withSubcommands(topLevel)
)

/** The commands' shape (flags, descriptions, examples) for the argv reader and the help renderer. */
export const rootTree = () => commandTree(rootCommand.descriptor, topLevel.map((c) => c.descriptor))
