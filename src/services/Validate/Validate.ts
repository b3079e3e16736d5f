import { Effect, Either } from "effect"
import type { Finding, ValidateOutput } from "../../schemas/validate"
import { resolveCredentials } from "../WarehouseAuth/credentials"
import { ProjectConfig } from "../ProjectConfig/ProjectConfig"
import { validateProducts } from "./products"

/** Offline checks of the project: findings with stable codes; never touches the network. */
export const validateProject = Effect.gen(function* () {
  const { file, root, config } = yield* ProjectConfig
  const adapters = Object.entries(config.adapter)
  const findings: Array<Finding> = [
    { code: "V001", severity: "ok", subject: "pcli.toml", message: `parsed: ${adapters.length} adapter(s)` }
  ]
  for (const [name, adapter] of adapters) {
    if (adapter.type !== "warehouse") continue
    // The same resolution the warehouse client uses at startup, so validate and run agree.
    const credentials = yield* Effect.either(resolveCredentials(name, adapter))
    findings.push(
      Either.isLeft(credentials)
        ? { code: "V010", severity: "error", subject: `adapter.${name}`, message: credentials.left.message }
        : {
            code: "V011",
            severity: "ok",
            subject: `adapter.${name}`,
            message: credentials.right.method === "token" ? "personal access token" : "OAuth client credentials"
          }
    )
  }
  if (config.gc?.physical_delete === true) {
    findings.push({
      code: "V020",
      severity: "error",
      subject: "gc.physical_delete",
      message: "physical_delete = true is not supported: gc retires artifacts and keeps their bytes"
    })
  }
  findings.push(...(yield* validateProducts(root)))
  const errors = findings.filter((f) => f.severity === "error").length
  const warnings = findings.filter((f) => f.severity === "warning").length
  return { command: "validate", ok: errors === 0, config_path: file, findings, errors, warnings } satisfies ValidateOutput
})


