import * as NodeFs from "node:fs"
import type { ModelFiles } from "../../schemas/plans"
import type { ModelDefinition } from "./models"

/**
 * A model's files as a plan's revisions hold them (the SQL it was compiled from, the sidecar and
 * contract texts): what a build records so a plan can judge a change against the last build too.
 * Undefined when a file can no longer be read (the build is then judged as before).
 */
export const filesOfDefinition = (definition: Pick<ModelDefinition, "sql" | "sidecarPath" | "contractPath">): ModelFiles | undefined => {
  try {
    const contract = definition.contractPath === undefined ? null : NodeFs.readFileSync(definition.contractPath, "utf8")
    return { sql: definition.sql, sidecar: NodeFs.readFileSync(definition.sidecarPath, "utf8"), contract }
  } catch {
    return undefined
  }
}
