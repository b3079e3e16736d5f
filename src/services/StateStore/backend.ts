import { Effect, Option } from "effect"
import { StateStore } from "./StateStore"

export type StateBackend = "sqlite" | "postgres"

/**
 * The open store's backend: where store SQL differs between SQLite and PostgreSQL it asks this,
 * once, when its service is made. Without a StateStore (a bare SqlClient in a test) it is SQLite.
 */
export const stateBackend: Effect.Effect<StateBackend> = Effect.map(Effect.serviceOption(StateStore), (info) =>
  Option.isSome(info) && info.value.backend === "postgres" && info.value.persisted ? "postgres" : "sqlite"
)
