import * as NodeContext from "@effect/platform-node/NodeContext"
import * as CliConfig from "@effect/cli/CliConfig"
import { Layer, Logger } from "effect"
import { Environment } from "../services/Environment/Environment"
import * as PlainConsole from "./PlainConsole"
import * as EventBus from "../services/EventBus/EventBus"
import * as Telemetry from "../services/Telemetry/Telemetry"

/** The real process environment; the only place pcli reads `process.env`. */
export const EnvironmentLive = Layer.sync(Environment, () => ({ ...process.env }))

/** Log lines go to stderr, so stdout carries only a command's output (JSON stays parseable). */
const StderrLogger = Logger.replace(Logger.defaultLogger, Logger.withConsoleError(Logger.logfmtLogger))

/** Leaner help: @effect/cli's built-in flags and value types are left out of every usage line. */
const CliSettings = CliConfig.layer({ showBuiltIns: false, showTypes: false })

/** What every command runs on: Node's platform, the environment, the event bus, logs and traces. */
export const AppLayer = Layer.mergeAll(NodeContext.layer, CliSettings, EnvironmentLive, EventBus.layer, StderrLogger, PlainConsole.layer.pipe(Layer.provide(EnvironmentLive)), Telemetry.layerFromEnv)
