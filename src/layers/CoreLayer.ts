import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import { Context, Effect, FiberRef, HashSet, Layer, Logger } from "effect"
import { Environment } from "../services/Environment/Environment"
import * as EventBus from "../services/EventBus/EventBus"
import * as Telemetry from "../services/Telemetry/Telemetry"
import * as PlainConsole from "./PlainConsole"
import { TestHooksLayer } from "./TestHooksLayer"

/** The real process environment; the only place pcli reads `process.env`. */
export const EnvironmentLive = Layer.sync(Environment, () => ({ ...process.env }))

/** Log lines go to stderr, so stdout carries only a command's output (JSON stays parseable). */
const stderrLogger = Logger.withConsoleError(Logger.logfmtLogger)
const StderrLogger = Logger.replace(Logger.defaultLogger, stderrLogger)

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
  TestHooksLayer.pipe(Layer.provide(EnvironmentLive)),
  Telemetry.layerFromEnv
)

/**
 * What the light entries' commands (src/light/: policy check, policy show, validate) use of
 * CoreLayer: files, paths, the environment, logs and traces. They publish no event (only discover
 * does) and print through the streams, never `Console`, so the event bus and PlainConsole would
 * change nothing for them. Built in order in one layer: merged, the same services cost a start
 * about 1,400 more fiber steps and 13 more fibers.
 */
export const LightCoreLayer = Layer.scopedContext(
  Effect.gen(function* () {
    const path = yield* Layer.build(NodePath.layer)
    const files = yield* Layer.build(NodeFileSystem.layer)
    // What StderrLogger does, as one scoped update of the fiber's loggers.
    yield* Effect.locallyScopedWith(FiberRef.currentLoggers, (loggers) => HashSet.add(HashSet.remove(loggers, Logger.defaultLogger), stderrLogger))
    const telemetry = yield* Layer.build(Telemetry.layerFromEnv)
    return Context.merge(Context.merge(path, files), telemetry).pipe(Context.add(Environment, { ...process.env }))
  })
)
