import { describe, expect, it } from "vitest"
import { readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { makeProject, runCli } from "../support/cli"

/** A preload that reports, at exit, whether the process loaded DuckDB's module at all. */
const hookDir = makeProject({
  "duckdb-probe.cjs":
    `process.on("exit", () => process.stderr.write("duckdb-loaded=" + Object.keys(require.cache).some((k) => k.includes("@duckdb")) + "\\n"))\n`
})
const probe = { NODE_OPTIONS: `--require ${join(hookDir, "duckdb-probe.cjs")}` }

const model = (name: string, sql: string, extra = "") => ({
  [`models/${name}.sql`]: sql,
  [`models/${name}.toml`]: `name = "${name}"\n[target]\ncatalog = "warehouse"\nschema = "s"\ntable = "${name}"\n${extra}`
})

const project = () =>
  makeProject({
    "pcli.toml": `[adapter.local]\ntype = "embedded"\n\n[policy]\nversion = 1\ndefault_agent_effect = "require_review"\n`,
    ...model("a", "SELECT 1 AS id"),
    ...model("b", "SELECT id FROM s.a"),
    ...model("c", "SELECT id FROM s.b", `\n[tags]\nlayer = "mart"\n`)
  })

const compile = async (cwd: string) => {
  const r = await runCli(["compile", "--output", "json"], { cwd, env: probe })
  expect(r.code, r.stderr).toBe(0)
  return { out: JSON.parse(r.stdout) as { execution_order: Array<string> }, duckdb: /duckdb-loaded=true/.test(r.stderr) }
}

const cacheFile = (cwd: string) => {
  const dir = join(cwd, ".pcli", "compile-cache")
  const files = readdirSync(dir).filter((f) => f.endsWith(".json"))
  expect(files).toHaveLength(1)
  return join(dir, files[0]!)
}

describe("compile cache (binary)", () => {
  it("a warm compile and policy check reuse the cache and never load DuckDB; an edit re-parses", async () => {
    const cwd = project()
    const cold = await compile(cwd)
    expect(cold.duckdb).toBe(true)
    expect(cold.out.execution_order).toEqual(["a", "b", "c"])
    const warm = await compile(cwd)
    expect(warm.duckdb).toBe(false)
    expect(warm.out).toEqual(cold.out)
    const check = await runCli(["policy", "check", "--principal", "agent", "--capability", "apply", "--model", "c", "--output", "json"], {
      cwd,
      env: probe
    })
    expect(check.code, check.stderr).toBe(0)
    expect(JSON.parse(check.stdout).model_attributes.downstreams).toBe(0)
    expect(check.stderr).toContain("duckdb-loaded=false")
    // Editing one model's SQL re-parses it (DuckDB loads) and the DAG follows the edit.
    writeFileSync(join(cwd, "models", "c.sql"), "SELECT id + 1 AS id FROM s.a")
    const edited = await compile(cwd)
    expect(edited.duckdb).toBe(true)
    const bAfter = await runCli(["policy", "check", "--principal", "agent", "--capability", "apply", "--model", "b", "--output", "json"], {
      cwd,
      env: probe
    })
    expect(JSON.parse(bAfter.stdout).model_attributes.downstreams).toBe(0)
    expect(bAfter.stderr).toContain("duckdb-loaded=false")
    // A sidecar-only edit is decoded again without DuckDB.
    writeFileSync(join(cwd, "models", "c.toml"), `name = "c"\n[target]\ncatalog = "warehouse"\nschema = "s"\ntable = "c"\n[tags]\nlayer = "x"\n`)
    const sidecarEdit = await runCli(["policy", "check", "--principal", "agent", "--capability", "apply", "--model", "c", "--output", "json"], {
      cwd,
      env: probe
    })
    expect(JSON.parse(sidecarEdit.stdout).model_attributes.layer).toBe("x")
    expect(sidecarEdit.stderr).toContain("duckdb-loaded=false")
  })

  it("a corrupt cache is ignored and rebuilt, never trusted", async () => {
    const cwd = project()
    const cold = await compile(cwd)
    const file = cacheFile(cwd)
    const text = readFileSync(file, "utf8")
    // A body that still parses but says b reads nothing: trusting it would change the DAG.
    writeFileSync(file, text.replace(/\[\{"schema":"s","table":"a"\}\]/, "[]"))
    const afterTamper = await compile(cwd)
    expect(afterTamper.duckdb).toBe(true)
    expect(afterTamper.out).toEqual(cold.out)
    expect(readFileSync(file, "utf8")).toBe(text)
    // Torn (truncated) and garbage files are rebuilt the same way.
    for (const broken of [text.slice(0, text.length / 2), "not json at all", ""]) {
      writeFileSync(file, broken)
      const rebuilt = await compile(cwd)
      expect(rebuilt.duckdb).toBe(true)
      expect(rebuilt.out).toEqual(cold.out)
      expect(readFileSync(file, "utf8")).toBe(text)
      expect((await compile(cwd)).duckdb).toBe(false)
    }
  })

  it("a foreign cache (another build, another models directory) is ignored and rewritten", async () => {
    const cwd = project()
    const cold = await compile(cwd)
    const file = cacheFile(cwd)
    const text = readFileSync(file, "utf8")
    const newline = text.indexOf("\n")
    const header = JSON.parse(text.slice(0, newline)) as Record<string, string>
    for (const foreign of [{ build: "0.0.0+other" }, { modelsDir: "/elsewhere/models" }, { format: "pcli-compile-cache/0" }]) {
      writeFileSync(file, `${JSON.stringify({ ...header, ...foreign })}\n${text.slice(newline + 1)}`)
      const rebuilt = await compile(cwd)
      expect(rebuilt.duckdb).toBe(true)
      expect(rebuilt.out).toEqual(cold.out)
      expect(readFileSync(file, "utf8")).toBe(text)
    }
  })
})
