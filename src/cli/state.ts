import { Command } from "@effect/cli"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { StateInfoOutput } from "../schemas/state"
import { StateStore } from "../services/StateStore/StateStore"
import { stateLayer, withPrincipal, withProject } from "./context"
import { commonOptions } from "./options"
import { emit } from "./render"

const infoCommand = Command.make("info", commonOptions, (opts) =>
  Effect.gen(function* () {
    const store = yield* StateStore
    const sql = yield* SqlClient.SqlClient
    const [count] = yield* sql<{ n: number }>`SELECT count(*) AS n FROM ledger`.pipe(Effect.orDie)
    const out: StateInfoOutput = {
      command: "state_info",
      path: store.path,
      exists: store.persisted,
      schema_version: store.schemaVersion,
      ledger_rows: count?.n ?? 0
    }
    yield* emit(opts.output, StateInfoOutput, out, (o) =>
      [`state store: ${o.path}${o.exists ? "" : " (not created yet)"}`, `schema version: ${o.schema_version}`, `ledger rows: ${o.ledger_rows}`].join("\n")
    )
  }).pipe((body) => withPrincipal(opts, body), withProject(opts, stateLayer("read")))
).pipe(Command.withDescription("Read-only: where the state store is, its schema version, its size"))

export const stateCommand = Command.make("state").pipe(
  Command.withDescription("Inspect the state store"),
  Command.withSubcommands([infoCommand])
)
