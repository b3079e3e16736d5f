import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

export interface ModelSpec {
  readonly sql: string
  /** Sidecar body after `name = ...`; defaults to a target in schema `main`. */
  readonly toml?: string
  readonly contract?: string
}

export const tempDir = (prefix = "pcli-pipeline-"): string => fs.mkdtempSync(path.join(os.tmpdir(), prefix))

/** Writes `models/<name>.sql|.toml|.contract.toml` under a fresh temp project and returns its root. */
export const writeProject = (models: Record<string, ModelSpec>): string => {
  const root = tempDir()
  const dir = path.join(root, "models")
  fs.mkdirSync(dir)
  for (const [name, spec] of Object.entries(models)) {
    fs.writeFileSync(path.join(dir, `${name}.sql`), spec.sql)
    const toml = spec.toml ?? `[target]\ncatalog = "warehouse"\nschema = "main"\ntable = "${name}"\n`
    fs.writeFileSync(path.join(dir, `${name}.toml`), `name = "${name}"\n${toml}`)
    if (spec.contract !== undefined) fs.writeFileSync(path.join(dir, `${name}.contract.toml`), spec.contract)
  }
  return root
}

export const target = (schema: string, table: string, extra = "") =>
  `${extra}\n[target]\ncatalog = "warehouse"\nschema = "${schema}"\ntable = "${table}"\n`
