import * as CommandExecutor from "@effect/platform/CommandExecutor"
import type { FileSystem } from "@effect/platform/FileSystem"
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

/** Node's command executor, loaded when a command first starts a subprocess (review's `git`): most light commands never do. */
const lazyCommandExecutor = (files: Context.Context<FileSystem>) =>
  CommandExecutor.makeExecutor((command) =>
    Effect.gen(function* () {
      const { layer } = yield* Effect.promise(() => import("@effect/platform-node/NodeCommandExecutor"))
      const executor = Context.get(yield* Layer.build(layer).pipe(Effect.provide(files)), CommandExecutor.CommandExecutor)
      return yield* executor.start(command)
    })
  )

/**
 * What the light entries' commands (src/light/, the read commands) use of AppLayer: files, paths,
 * the environment, logs, traces and subprocesses. They publish no event (only discover does) and
 * print through the streams, never `Console`, so the event bus and PlainConsole would change
 * nothing for them. Built in order in one layer: merged, the same services cost a start about
 * 1,400 more fiber steps and 13 more fibers.
 */
export const LightCoreLayer = Layer.scopedContext(
  Effect.gen(function* () {
    const path = yield* Layer.build(NodePath.layer)
    const files = yield* Layer.build(NodeFileSystem.layer)
    // What StderrLogger does, as one scoped update of the fiber's loggers.
    yield* Effect.locallyScopedWith(FiberRef.currentLoggers, (loggers) => HashSet.add(HashSet.remove(loggers, Logger.defaultLogger), stderrLogger))
    const telemetry = yield* Layer.build(Telemetry.layerFromEnv)
    return Context.merge(Context.merge(path, files), telemetry).pipe(
      Context.add(Environment, { ...process.env }),
      Context.add(CommandExecutor.CommandExecutor, lazyCommandExecutor(files))
    )
  })
)
