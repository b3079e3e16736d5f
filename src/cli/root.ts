import { Command } from "@effect/cli"
import { auditCommand } from "./audit"
import { discoverCommand } from "./discover"
import { governCommands } from "./govern"
import { pipelineCommands } from "./pipeline"
import { policyCommand } from "./policy"
import { productCommand } from "./product"
import { stateCommand } from "./state"
import { validateCommand } from "./validate"

export const rootCommand = Command.make("pcli").pipe(
  Command.withDescription("A pipeline tool for SQL warehouses: run models, govern agents, reclaim artifacts"),
  Command.withSubcommands([validateCommand, ...pipelineCommands, ...governCommands, discoverCommand, policyCommand, productCommand, stateCommand, auditCommand])
)
