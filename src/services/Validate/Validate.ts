import { Effect } from "effect"
import { isSet, type WarehouseAdapter } from "../../schemas/adapters"
import type { Finding, ValidateOutput } from "../../schemas/validate"
import { Environment } from "../Environment/Environment"
import { ProjectConfig } from "../ProjectConfig/ProjectConfig"

const nonEmpty = (v: string | undefined): v is string => v !== undefined && v !== ""

/** Which warehouse authentication method the credentials select, if any (interface: Authentication). */
export const warehouseAuthMethod = (
  adapter: WarehouseAdapter,
  env: Readonly<Record<string, string | undefined>>
): "token" | "oauth" | undefined => {
  if (isSet(adapter.token) || nonEmpty(env["WAREHOUSE_TOKEN"])) return "token"
  const clientId = nonEmpty(adapter.client_id) || nonEmpty(env["WAREHOUSE_CLIENT_ID"])
  const clientSecret = isSet(adapter.client_secret) || nonEmpty(env["WAREHOUSE_CLIENT_SECRET"])
  return clientId && clientSecret ? "oauth" : undefined
}

export const missingAuthMessage = (name: string) =>
  `no warehouse authentication method for adapter.${name}: set token (or WAREHOUSE_TOKEN) for a personal access token, or both client_id and client_secret (or WAREHOUSE_CLIENT_ID and WAREHOUSE_CLIENT_SECRET) for OAuth client credentials`

/** Offline checks of the project: findings with stable codes; never touches the network. */
export const validateProject = Effect.gen(function* () {
  const { file, config } = yield* ProjectConfig
  const env = yield* Environment
  const adapters = Object.entries(config.adapter)
  const findings: Array<Finding> = [
    { code: "V001", severity: "ok", subject: "pcli.toml", message: `parsed: ${adapters.length} adapter(s)` }
  ]
  for (const [name, adapter] of adapters) {
    if (adapter.type !== "warehouse") continue
    const method = warehouseAuthMethod(adapter, env)
    findings.push(
      method === undefined
        ? { code: "V010", severity: "error", subject: `adapter.${name}`, message: missingAuthMessage(name) }
        : {
            code: "V011",
            severity: "ok",
            subject: `adapter.${name}`,
            message: method === "token" ? "personal access token" : "OAuth client credentials"
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
  const errors = findings.filter((f) => f.severity === "error").length
  const warnings = findings.filter((f) => f.severity === "warning").length
  return { command: "validate", ok: errors === 0, config_path: file, findings, errors, warnings } satisfies ValidateOutput
})

export const renderValidateText = (out: ValidateOutput) =>
  [
    ...out.findings.map((f) => `${f.severity.padEnd(7)} ${f.code}  ${f.subject}: ${f.message}`),
    `${out.errors} error(s), ${out.warnings} warning(s)`
  ].join("\n")
