import { Config, Effect, Option, Redacted } from "effect"
import { isSet, type WarehouseAdapter } from "../../schemas/adapters"
import { NoWarehouseCredentials } from "./errors"

export type WarehouseCredentials =
  | { readonly method: "token"; readonly token: Redacted.Redacted<string> }
  | { readonly method: "oauth"; readonly clientId: string; readonly clientSecret: Redacted.Redacted<string> }

/** An optional variable from the ambient ConfigProvider (process env in production). */
const optionalEnv = <A>(config: Config.Config<A>) =>
  Config.option(config).pipe(Effect.orElseSucceed(() => Option.none<A>()))

const firstSet = (...secrets: ReadonlyArray<Redacted.Redacted<string> | undefined>) => secrets.find(isSet)

/**
 * Picks the auth method from what is supplied, config before environment: a non-empty
 * token wins; else a non-empty client id and secret; else a startup error.
 */
export const resolveCredentials = (
  adapterName: string,
  adapter: WarehouseAdapter
): Effect.Effect<WarehouseCredentials, NoWarehouseCredentials> =>
  Effect.gen(function* () {
    const envToken = yield* optionalEnv(Config.redacted("WAREHOUSE_TOKEN"))
    const token = firstSet(adapter.token, Option.getOrUndefined(envToken))
    if (token !== undefined) return { method: "token", token } as const

    const envId = yield* optionalEnv(Config.string("WAREHOUSE_CLIENT_ID"))
    const envSecret = yield* optionalEnv(Config.redacted("WAREHOUSE_CLIENT_SECRET"))
    const clientId = [adapter.client_id, Option.getOrUndefined(envId)].find((id) => id !== undefined && id.length > 0)
    const clientSecret = firstSet(adapter.client_secret, Option.getOrUndefined(envSecret))
    if (clientId !== undefined && clientSecret !== undefined) return { method: "oauth", clientId, clientSecret } as const

    return yield* Effect.fail(new NoWarehouseCredentials({ adapter: adapterName }))
  })
