import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Option } from "effect"
import type { StateMigrateOutput } from "../schemas/state"
import { ProjectContext } from "../services/ProjectConfig/ProjectContext"
import { InvalidStateUrl } from "../services/StateStore/paths"
import { StateStoreIo } from "../services/StateStore/errors"
import * as StateStore from "../services/StateStore/StateStore"
import { importSqliteStore } from "../services/StateTransfer/importSqlite"

const pgUrl = /^postgres(ql)?:\/\//

/**
 * `pcli state migrate --to postgres://…` (decisions.md 36): the project's SQLite store copied into an
 * empty PostgreSQL store whose schema is the namespace (or `pcli`), its chain verified on arrival.
 */
export const stateMigrate = (input: { readonly to: string; readonly namespace: string | undefined }) =>
  Effect.gen(function* () {
    if (!pgUrl.test(input.to)) return yield* new InvalidStateUrl({ source: "--to" })
    const project = yield* ProjectContext
    const namespace = input.namespace ?? Option.getOrUndefined(Option.flatMapNullable(project.config, (c) => c.settings.state?.namespace))
    const schema = namespace ?? "pcli"
    const sourceLocation: StateStore.StateLocation = { path: project.state.path, createParent: false }
    return yield* Effect.scoped(
      Effect.gen(function* () {
        const ctx = yield* Layer.build(StateStore.layer(sourceLocation, "read"))
        if (!Context.get(ctx, StateStore.StateStore).persisted) {
          return yield* new StateStoreIo({ path: sourceLocation.path, detail: "no SQLite store here to migrate" })
        }
        const result = yield* importSqliteStore(Context.get(ctx, SqlClient.SqlClient), { url: input.to, schema })
        const out: StateMigrateOutput = {
          command: "state_migrate",
          from: sourceLocation.path,
          to: result.label,
          schema,
          ledger_rows: result.ledgerRows,
          tables: result.tables,
          chain_intact: true,
          head_hash: result.headHash
        }
        return out
      })
    )
  })
