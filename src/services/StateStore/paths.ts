import { Data, Effect } from "effect"

export class InvalidNamespace extends Data.TaggedError("InvalidNamespace")<{ readonly namespace: string }> {
  readonly code = "invalid-state-namespace"
  override get message() {
    return `invalid state namespace ${JSON.stringify(this.namespace)}: use 1-63 characters of [A-Za-z0-9._-], not starting with a dot`
  }
}

const namespaceGrammar = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,62}$/

export interface StatePathInputs {
  readonly statePath: string | undefined
  readonly namespaceFlag: string | undefined
  readonly namespaceConfig: string | undefined
  readonly modelsDir: string
}

/**
 * decisions.md item 4: `--state-path` wins; else a namespace (flag, then `[state]`) gives
 * `<models>/.pcli-state/<id>.sqlite`; else `<models>/.pcli-state.sqlite`.
 */
export const resolveStatePath = (inputs: StatePathInputs, join: (...parts: Array<string>) => string) => {
  if (inputs.statePath !== undefined) return Effect.succeed(inputs.statePath)
  const namespace = inputs.namespaceFlag ?? inputs.namespaceConfig
  if (namespace === undefined) return Effect.succeed(join(inputs.modelsDir, ".pcli-state.sqlite"))
  if (!namespaceGrammar.test(namespace)) return Effect.fail(new InvalidNamespace({ namespace }))
  return Effect.succeed(join(inputs.modelsDir, ".pcli-state", `${namespace}.sqlite`))
}
