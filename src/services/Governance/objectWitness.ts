import { FileSystem, Path } from "@effect/platform"
import { Effect, Option } from "effect"
import { fromUrl, getText } from "../../platform/ObjectStore/ObjectStore"
import type { GovernanceRecord } from "./record"

/** The object tier's copy of the governance record (decisions 35), beside the freeze markers. */
const KEY = "witness/head.json"

const withStore = <A>(url: string, use: (store: Effect.Effect.Success<ReturnType<typeof fromUrl>>) => Effect.Effect<A, unknown>) =>
  Effect.scoped(Effect.flatMap(fromUrl(url), use))

/**
 * Writes the record into the `[state]` object tier, when one is configured. Best effort: the mutation
 * and its rows stand either way, and a warning says the tier's witness is behind.
 */
export const writeObjectWitness = (url: string | undefined, record: GovernanceRecord, at: string): Effect.Effect<void> =>
  Effect.gen(function* () {
    const fs = yield* Effect.serviceOption(FileSystem.FileSystem)
    const path = yield* Effect.serviceOption(Path.Path)
    if (url === undefined || Option.isNone(fs) || Option.isNone(path)) return
    yield* withStore(url, (store) => store.put(KEY, `${JSON.stringify({ ...record, updated_at: at }, null, 2)}\n`, { contentType: "application/json" })).pipe(
      Effect.provideService(FileSystem.FileSystem, fs.value),
      Effect.provideService(Path.Path, path.value),
      Effect.catchAll((e) => Effect.logWarning(`governance: the ledger head was not witnessed in the object tier: ${String((e as Error).message ?? e)}`))
    )
  })

/** The object tier's record: undefined when there is none; a string saying why when it cannot be read. */
export const readObjectWitness = (url: string): Effect.Effect<GovernanceRecord | undefined | { readonly unreadable: string }, never, FileSystem.FileSystem | Path.Path> =>
  withStore(url, (store) => getText(store, KEY)).pipe(
    Effect.map((text) => {
      if (Option.isNone(text)) return undefined
      const body = JSON.parse(text.value) as Partial<GovernanceRecord>
      return typeof body.store_id === "string" && typeof body.policy_digest === "string" && Number.isInteger(body.head_seq) && typeof body.head_hash === "string"
        ? { store_id: body.store_id, policy_digest: body.policy_digest, head_seq: body.head_seq!, head_hash: body.head_hash }
        : { unreadable: `${KEY} is not a governance record` }
    }),
    Effect.catchAllDefect(() => Effect.succeed({ unreadable: `${KEY} is not JSON` })),
    Effect.catchAll((e) => Effect.succeed({ unreadable: String((e as Error).message ?? e) }))
  )
