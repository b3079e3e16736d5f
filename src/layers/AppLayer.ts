import * as NodeCommandExecutor from "@effect/platform-node/NodeCommandExecutor"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import * as NodeTerminal from "@effect/platform-node/NodeTerminal"
import * as NodeWorker from "@effect/platform-node/NodeWorker"
import * as Terminal from "@effect/platform/Terminal"
import * as CliConfig from "@effect/cli/CliConfig"
import { Effect, Layer, Logger, Scope } from "effect"
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

/**
 * The terminal, opened on first use: Node's terminal takes hold of stdin when it is made, which
 * costs every command start-up time although only prompts (`--wizard`) read from it.
 */
const LazyTerminal = Layer.scoped(
  Terminal.Terminal,
  Effect.gen(function* () {
    const scope = yield* Effect.scope
    const real = yield* Effect.cached(Effect.provideService(NodeTerminal.make(), Scope.Scope, scope))
    return Terminal.Terminal.of({
      columns: Effect.flatMap(real, (t) => t.columns),
      rows: Effect.flatMap(real, (t) => t.rows),
      isTTY: Effect.flatMap(real, (t) => t.isTTY),
      readInput: Effect.flatMap(real, (t) => t.readInput),
      readLine: Effect.flatMap(real, (t) => t.readLine),
      display: (text) => Effect.flatMap(real, (t) => t.display(text))
    })
  })
)

/** Node's platform as NodeContext.layer builds it, with the terminal made on first use. */
const NodePlatform = Layer.mergeAll(NodePath.layer, NodeCommandExecutor.layer, LazyTerminal, NodeWorker.layerManager).pipe(Layer.provideMerge(NodeFileSystem.layer))

/** What every command runs on: Node's platform, the environment, the event bus, logs and traces. */
export const AppLayer = Layer.mergeAll(NodePlatform, CliSettings, EnvironmentLive, EventBus.layer, StderrLogger, PlainConsole.layer.pipe(Layer.provide(EnvironmentLive)), Telemetry.layerFromEnv)
