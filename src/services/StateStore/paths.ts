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

export class InvalidStateUrl extends Data.TaggedError("InvalidStateUrl")<{ readonly source: string }> {
  readonly code = "invalid-state-url"
  override get message() {
    // The value is a secret: the message names where it came from, never what it is.
    return `${this.source} is not a PostgreSQL URL: use postgres://user@host:port/database`
  }
}

export interface StateLocationInputs extends StatePathInputs {
  /** `PCLI_STATE_URL`. */
  readonly urlEnv: string | undefined
  /** `[state] url`, `${VAR}`s already substituted. */
  readonly urlConfig: string | undefined
}

const pgUrl = /^postgres(ql)?:\/\//

/**
 * decision 36: an explicit `--state-path` is a SQLite file; else `PCLI_STATE_URL`, then `[state] url`,
 * name a PostgreSQL store whose schema is the namespace (or `pcli`); else decisions.md item 4's file.
 */
export const resolveStateLocation = (inputs: StateLocationInputs, join: (...parts: Array<string>) => string) =>
  Effect.gen(function* () {
    const path = yield* resolveStatePath(inputs, join)
    const createParent = inputs.statePath === undefined
    if (inputs.statePath !== undefined) return { path, createParent }
    const url = inputs.urlEnv !== undefined && inputs.urlEnv !== "" ? { value: inputs.urlEnv, source: "PCLI_STATE_URL" } : inputs.urlConfig === undefined ? undefined : { value: inputs.urlConfig, source: "[state] url" }
    if (url === undefined) return { path, createParent }
    if (!pgUrl.test(url.value)) return yield* new InvalidStateUrl({ source: url.source })
    return { path, createParent, pg: { url: url.value, schema: inputs.namespaceFlag ?? inputs.namespaceConfig ?? "pcli" } }
  })
