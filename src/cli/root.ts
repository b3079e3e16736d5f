import { Command } from "@effect/cli"
import { discoverCommand } from "./discover"
import { governCommands } from "./govern"
import { pipelineCommands } from "./pipeline"
import { policyCommand } from "./policy"
import { productCommand } from "./product"
import { reclaimCommands } from "./reclaim"
import { stateCommand } from "./state"
import { validateCommand } from "./validate"

export const rootCommand = Command.make("pcli").pipe(
  Command.withDescription("A pipeline tool for SQL warehouses: run models, govern agents, reclaim artifacts"),
  Command.withSubcommands([validateCommand, ...pipelineCommands, ...governCommands, ...reclaimCommands, discoverCommand, policyCommand, productCommand, stateCommand])
)
