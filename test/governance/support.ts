import { Effect } from "effect"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { runCli } from "../support/cli"
import { readLedgerRows } from "../support/stateStore"

/** The two principals the attack tests act as. */
export const agent = { PCLI_PRINCIPAL: "agent", PCLI_PRINCIPAL_ID: "bot-1" }
export const human = { PCLI_PRINCIPAL: "human", PCLI_PRINCIPAL_ID: "alice" }

/** Agents may apply `capability` and value changes on the bronze layer; everything else needs review. */
export const bronzePolicy = (capability: string) => `[policy]
version = 1
default_agent_effect = "require_review"

[[policy.rules]]
principal = "agent"
capability = "${capability}"
effect = "allow"
scope = { layer = "bronze" }

[[policy.rules]]
principal = "agent"
capability = "value_change"
effect = "allow"
scope = { layer = "bronze" }
`

/** A sidecar tagged with its layer, its table in a schema of the same name unless given. */
export const layeredSidecar = (name: string, layer: string, extra = "", catalog = "w", schema = layer) =>
  `name = "${name}"\n[target]\ncatalog = "${catalog}"\nschema = "${schema}"\ntable = "${name}"\n[tags]\nlayer = "${layer}"\n${extra}`

/** The binary's JSON and ledger for the project at `cwd()` (set in the file's beforeAll). */
export const projectCli = (cwd: () => string) => {
  const store = () => join(cwd(), "models", ".pcli-state.sqlite")
  const json = async (args: ReadonlyArray<string>, env: Record<string, string>) => {
    const r = await runCli([...args, "--output", "json"], { cwd: cwd(), env })
    return { ...r, out: JSON.parse(r.stdout || "{}") }
  }
  const ledger = () => Effect.runPromise(readLedgerRows(store()))
  /** The rows `run` appended, with the command's result. */
  const rowsOf = async <A>(run: () => Promise<A>) => {
    const before = existsSync(store()) ? (await ledger()).length : 0
    const result = await run()
    return { result, rows: (await ledger()).slice(before) }
  }
  return { json, ledger, rowsOf }
}
