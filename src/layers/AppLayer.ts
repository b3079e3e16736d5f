import * as NodeContext from "@effect/platform-node/NodeContext"
import { Layer } from "effect"
import { Environment } from "../services/Environment/Environment"

/** The real process environment; the only place pcli reads `process.env`. */
export const EnvironmentLive = Layer.sync(Environment, () => ({ ...process.env }))

/** What every command runs on: Node's file system, path, terminal, and the environment. */
export const AppLayer = Layer.mergeAll(NodeContext.layer, EnvironmentLive)
