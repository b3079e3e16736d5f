import { describe, expect, it } from "vitest"
import { utimesSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { makeProject, runCli } from "../support/cli"

// W004 through the real binary: a classified column whose tag resolves nowhere is a compile warning (exit 0),
// and the compile index never serves a warning that pcli.toml's masking blocks no longer leave.

const config = `[adapter.local]\ntype = "embedded"\n\n[policy]\nversion = 1\ndefault_agent_effect = "require_review"\n`
const sidecar = (name: string, extra = "") => `name = "${name}"\n[target]\ncatalog = "warehouse"\nschema = "s"\ntable = "${name}"\n${extra}`

const project = (toml = config) =>
  makeProject({
    "pcli.toml": toml,
    "models/customers.sql": "SELECT 1 AS id, 'a@b' AS email, '1' AS ssn, 'n' AS region",
    "models/customers.toml": sidecar("customers", `[classification]\nssn = "pii"\nemail = "pii"\nregion = "internal"\n`),
    "models/orders.sql": "SELECT id FROM s.customers"
  })

/** Every file an hour old: the compile index trusts every stamp at once, so the next compile takes its warm path. */
const age = (cwd: string, files: ReadonlyArray<string>) => {
  const t = Date.now() / 1000 - 3600
  for (const f of files) utimesSync(join(cwd, f), t, t)
}
const modelFiles = ["models/customers.sql", "models/customers.toml", "models/orders.sql", "models/orders.toml", "models"]

const compileJson = async (cwd: string) => {
  const r = await runCli(["compile", "--output", "json"], { cwd })
  expect(r.code, r.stderr).toBe(0)
  return JSON.parse(r.stdout) as { findings: ReadonlyArray<Record<string, string>> }
}
const subjects = async (cwd: string) => (await compileJson(cwd)).findings.map((f) => f.subject)

const w004 = (column: string) => ({
  code: "W004",
  severity: "warning",
  subject: `customers.${column}`,
  message: `classification 'pii' of column '${column}' has no masking resolution`,
  suggestion: 'add `pii = "hash"` (or redact/partial/none) under [mask], or list "pii" in [classifications].allow_unmasked'
})

describe("pcli compile: W004 (binary)", () => {
  it("reports one warning per unresolved (model, column, tag), in JSON and in text, and exits 0", async () => {
    const cwd = project(`${config}\n[mask]\ninternal = "none"\n`)
    writeFileSync(join(cwd, "models", "orders.toml"), sidecar("orders"))
    const out = await compileJson(cwd)
    expect(out.findings).toEqual([w004("email"), w004("ssn")])
    expect(Object.keys(out)).toEqual(["command", "models_dir", "model_count", "execution_order", "execution_layers", "models", "findings"])
    const text = await runCli(["compile"], { cwd })
    expect(text.code, text.stderr).toBe(0)
    expect(text.stdout).toContain(
      [
        "warning W004  customers.email: classification 'pii' of column 'email' has no masking resolution",
        `          suggestion: ${w004("email").suggestion}`,
        "warning W004  customers.ssn: classification 'pii' of column 'ssn' has no masking resolution",
        ""
      ].join("\n")
    )
    // The light entry (`pcli compile`) and the full bundle (`--output=text`) print the same bytes, warm or not.
    for (const args of [["compile", "--output=text"], ["compile"]]) expect((await runCli(args, { cwd })).stdout).toBe(text.stdout)
    const json = await runCli(["compile", "--output=json"], { cwd })
    expect(JSON.parse(json.stdout)).toEqual(out)
  })

  it("editing pcli.toml's [mask], [mask.<env>] or [classifications] changes the very next compile's warnings", async () => {
    const cwd = project()
    writeFileSync(join(cwd, "models", "orders.toml"), sidecar("orders"))
    age(cwd, modelFiles)
    expect(await subjects(cwd)).toEqual(["customers.email", "customers.region", "customers.ssn"])
    expect(await subjects(cwd)).toEqual(["customers.email", "customers.region", "customers.ssn"])
    writeFileSync(join(cwd, "pcli.toml"), `${config}\n[mask]\npii = "hash"\n`)
    expect(await subjects(cwd)).toEqual(["customers.region"])
    const text = await runCli(["compile"], { cwd })
    expect(text.stdout).not.toContain("customers.email")
    // An environment's override resolves a tag too (compile has no environment: any [mask.<env>] counts, as in product verify).
    writeFileSync(join(cwd, "pcli.toml"), `${config}\n[mask]\npii = "hash"\n\n[mask.prod]\ninternal = "redact"\n`)
    expect(await subjects(cwd)).toEqual([])
    writeFileSync(join(cwd, "pcli.toml"), `${config}\n[classifications]\nallow_unmasked = ["internal"]\n`)
    expect(await subjects(cwd)).toEqual(["customers.email", "customers.ssn"])
    writeFileSync(join(cwd, "pcli.toml"), config)
    expect(await subjects(cwd)).toEqual(["customers.email", "customers.region", "customers.ssn"])
  })

  it("a sidecar's classification edited on the warm path is seen by the next compile", async () => {
    const cwd = project(`${config}\n[mask]\npii = "hash"\n`)
    writeFileSync(join(cwd, "models", "orders.toml"), sidecar("orders"))
    age(cwd, [...modelFiles])
    expect(await subjects(cwd)).toEqual(["customers.region"])
    expect(await subjects(cwd)).toEqual(["customers.region"])
    writeFileSync(join(cwd, "models", "orders.toml"), sidecar("orders", `[classification]\nid = "secret"\n`))
    expect(await subjects(cwd)).toEqual(["customers.region", "orders.id"])
  })
})
