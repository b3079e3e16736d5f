/**
 * Child-process entry for the TLS end-to-end test: the production layer (default trust,
 * default ConfigProvider = process env) runs one statement against the emulator.
 */
import { Effect, Exit, Cause, Option } from "effect"
import { layerFromAdapter } from "../../../src/services/Warehouse/remote"
import { Warehouse } from "../../../src/services/Warehouse/Warehouse"

const adapter = {
  type: "warehouse" as const,
  host: process.env.E2E_HOST ?? "",
  http_path: process.env.E2E_HTTP_PATH ?? ""
}

const program = Effect.flatMap(Warehouse, (warehouse) => warehouse.execute(process.env.E2E_SQL ?? "SELECT 1")).pipe(
  Effect.provide(layerFromAdapter("e2e", adapter))
)

void Effect.runPromiseExit(program).then((exit) => {
  if (Exit.isSuccess(exit)) {
    process.stdout.write(JSON.stringify({ rows: exit.value.rows }) + "\n")
    return
  }
  const failure = Option.getOrUndefined(Cause.failureOption(exit.cause))
  const error = failure as { code?: string; message?: string } | undefined
  process.stdout.write(JSON.stringify({ error: { code: error?.code ?? "defect", message: error?.message ?? Cause.pretty(exit.cause) } }) + "\n")
  process.exitCode = 1
})
