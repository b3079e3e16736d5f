import * as NodeCommandExecutor from "@effect/platform-node/NodeCommandExecutor"
import * as NodeTerminal from "@effect/platform-node/NodeTerminal"
import * as NodeWorker from "@effect/platform-node/NodeWorker"
import * as Terminal from "@effect/platform/Terminal"
import * as CliConfig from "@effect/cli/CliConfig"
import { Effect, Layer, Scope } from "effect"
import { CoreLayer } from "./CoreLayer"

export { EnvironmentLive } from "./CoreLayer"

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

/** What every command runs on: the core services (CoreLayer) plus subprocesses, the terminal, workers and @effect/cli's settings. */
export const AppLayer = Layer.mergeAll(NodeCommandExecutor.layer, LazyTerminal, NodeWorker.layerManager, CliSettings).pipe(Layer.provideMerge(CoreLayer))
