// The three-model project the environment and environment-gc tests branch, promote and reclaim (raw → clean → total).
import { makeProject } from "./cli"

/** A model's sidecar with its target `w.<schema>.<name>`, and any further TOML. */
export const sidecar = (name: string, schema: string, extra = "") => `name = "${name}"\n[target]\ncatalog = "w"\nschema = "${schema}"\ntable = "${name}"\n${extra}`

/** raw (staging) → clean (marts) → total (marts) on the embedded warehouse; `config` is appended to pcli.toml. */
export const environmentProject = (name: string, config = "") =>
  makeProject({
    "pcli.toml": `[project]\nname = "${name}"\n[adapter.local]\ntype = "embedded"\n${config}`,
    "models/raw.sql": "SELECT i AS id, 'v' || i AS v FROM range(1, 6) t(i)",
    "models/raw.toml": sidecar("raw", "staging"),
    "models/clean.sql": "SELECT id, upper(v) AS v FROM staging.raw",
    "models/clean.toml": sidecar("clean", "marts"),
    "models/total.sql": "SELECT count(*) AS n FROM marts.clean",
    "models/total.toml": sidecar("total", "marts")
  })
