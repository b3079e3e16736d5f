import { Command, Options } from "@effect/cli"
import { Effect } from "effect"
import { commonOptions } from "./options"
import { described } from "./help"

const impl = Effect.promise(() => import("./state.run"))

const infoCommand = Command.make("info", commonOptions, (opts) => Effect.flatMap(impl, (m) => m.runInfo(opts))).pipe(Command.withDescription(
  described("Read-only: where the state store is, its backend, schema and database role, its schema version, its size", "pcli state info --state-namespace ci --output json")
))

const initOptions = {
  ...commonOptions,
  print: Options.boolean("print").pipe(Options.withDescription("Print the SQL (schema, tables, roles, rules) for a DBA instead of running it"))
}

const initCommand = Command.make("init", initOptions, (opts) => Effect.flatMap(impl, (m) => m.runInit(opts))).pipe(Command.withDescription(
  described("Create the state store; on PostgreSQL also the roles pcli_human and pcli_agent and the rules the database enforces", "pcli state init --print --config pcli.toml")
))

const migrateOptions = {
  ...commonOptions,
  to: Options.text("to").pipe(Options.withDescription("The empty PostgreSQL store to copy into: postgres://user@host:port/database"))
}

const migrateCommand = Command.make("migrate", migrateOptions, (opts) => Effect.flatMap(impl, (m) => m.runMigrate(opts))).pipe(Command.withDescription(
  described("Copy this SQLite state store into an empty PostgreSQL store and verify the ledger chain there", "pcli state migrate --to postgres://dba@db/pcli")
))

export const stateCommand = Command.make("state").pipe(
  Command.withDescription(described("Create, inspect and move the state store", "pcli state info")),
  Command.withSubcommands([infoCommand, initCommand, migrateCommand])
)
