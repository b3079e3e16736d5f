import * as NodeFs from "node:fs"
import type { ModelFiles } from "../../schemas/plans"
import type { ModelDefinition } from "./models"

/**
 * A model's files as a plan's revisions hold them (the SQL, sidecar and contract texts it was compiled
 * from): what a build records so a plan can judge a change against the last build too. A definition from
 * the compile cache has no texts: they are read now. Undefined when a file can no longer be read.
 */
export const filesOfDefinition = (definition: Pick<ModelDefinition, "sql" | "sidecarPath" | "contractPath" | "files">): ModelFiles | undefined => {
  // Read at the end of a build, an edit made meanwhile would be recorded as what was built (decision 33).
  if (definition.files !== undefined) return definition.files
  try {
    const contract = definition.contractPath === undefined ? null : NodeFs.readFileSync(definition.contractPath, "utf8")
    return { sql: definition.sql, sidecar: NodeFs.readFileSync(definition.sidecarPath, "utf8"), contract }
  } catch {
    return undefined
  }
}
