import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import { Layer, Logger } from "effect"
import { Environment } from "../services/Environment/Environment"
import * as EventBus from "../services/EventBus/EventBus"
import * as Telemetry from "../services/Telemetry/Telemetry"
import * as PlainConsole from "./PlainConsole"

/** The real process environment; the only place pcli reads `process.env`. */
export const EnvironmentLive = Layer.sync(Environment, () => ({ ...process.env }))

/** Log lines go to stderr, so stdout carries only a command's output (JSON stays parseable). */
const StderrLogger = Logger.replace(Logger.defaultLogger, Logger.withConsoleError(Logger.logfmtLogger))

/**
 * What a command that runs no subprocess, worker or prompt needs: files, paths, the environment, the
 * event bus, logs and traces. AppLayer adds the rest.
 */
export const CoreLayer = Layer.mergeAll(
  NodePath.layer,
  NodeFileSystem.layer,
  EnvironmentLive,
  EventBus.layer,
  StderrLogger,
  PlainConsole.layer.pipe(Layer.provide(EnvironmentLive)),
  Telemetry.layerFromEnv
)

/**
 * What the light entries' commands (src/light/: policy check, policy show, validate) use of
 * CoreLayer: files, paths, the environment, logs and traces. They publish no event (only discover
 * does) and print through the streams, never `Console`, so the event bus and PlainConsole would
 * change nothing for them; each layer is a few hundred fiber steps at every start.
 */
export const LightCoreLayer = Layer.mergeAll(NodePath.layer, NodeFileSystem.layer, EnvironmentLive, StderrLogger, Telemetry.layerFromEnv)
