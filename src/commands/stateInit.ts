import { FileSystem } from "@effect/platform"
import { Context, Data, Effect, Layer } from "effect"
import type { StateInitOutput, StateInitScriptOutput } from "../schemas/state"
import { ProjectContext } from "../services/ProjectConfig/ProjectContext"
import { initPgStore, initScript } from "../services/StateStore/pgInit"
import { CURRENT_SCHEMA_VERSION } from "../services/StateStore/schemaVersion"
import * as StateStore from "../services/StateStore/StateStore"

export class InitPrintNeedsPostgres extends Data.TaggedError("InitPrintNeedsPostgres")<{}> {
  readonly code = "init-print-needs-postgres"
  override get message() {
    return "state init --print prints the SQL of a PostgreSQL store: set [state] url or PCLI_STATE_URL"
  }
}


/**
 * `pcli state init` (decisions.md 36): makes the store. On PostgreSQL also the two principal roles
 * and the rules the database enforces; with `print`, only prints that SQL. Idempotent.
 */
export const stateInit = (input: { readonly print: boolean }) =>
  Effect.gen(function* () {
    const project = yield* ProjectContext
    const pg = project.state.pg
    if (pg === undefined) {
      if (input.print) return yield* new InitPrintNeedsPostgres()
      const fs = yield* FileSystem.FileSystem
      const existed = yield* fs.exists(project.state.path).pipe(Effect.orElseSucceed(() => false))
      const info = yield* Effect.scoped(Effect.map(Layer.build(StateStore.layer(project.state, "write")), (ctx) => Context.get(ctx, StateStore.StateStore)))
      const out: StateInitOutput = { command: "state_init", backend: "sqlite", path: info.path, schema: null, created: !existed, schema_version: info.schemaVersion, roles: [] }
      return out
    }
    if (input.print) {
      const script: StateInitScriptOutput = { command: "state_init_print", schema: pg.schema, sql: initScript(pg.schema) }
      return script
    }
    const result = yield* Effect.scoped(initPgStore(pg))
    const out: StateInitOutput = {
      command: "state_init",
      backend: "postgres",
      path: result.label,
      schema: pg.schema,
      created: result.created,
      schema_version: CURRENT_SCHEMA_VERSION,
      roles: result.roles
    }
    return out
  })
