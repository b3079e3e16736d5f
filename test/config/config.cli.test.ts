import * as fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { existsSync, readdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { type CliResult, makeProject, runCli } from "../support/cli"
import { addTenant, type EltEmulator, makeTenant, startEltEmulator } from "../support/eltEmulator"
import { canaryEnv, configText, leaksCanary } from "./generated"

const SECRET = "4242424242"

let emulator: EltEmulator
beforeAll(async () => {
  emulator = await startEltEmulator({ latencyMs: 1 })
  addTenant(emulator, makeTenant("key-root", "dest_1", 2, "elt-pass"))
})
afterAll(() => emulator.close())

const eltProject = (cache: string) =>
  makeProject({
    "pcli.toml": `[adapter.elt]\ntype = "elt"\napi_key = "key-root"\napi_secret = "elt-pass"\ndestination_id = "dest_1"\nbase_url = "${emulator.baseUrl}"\n[adapter.elt.cache]\n${cache}\n`,
    "models/staging/.keep": ""
  })

/** One coded line on stderr, exit 1, and in JSON mode a body with that code. */
const expectConfigError = async (args: ReadonlyArray<string>, cwd: string, code: string, env: Record<string, string> = {}) => {
  const text = await runCli(args, { cwd, env })
  expect(text.code).toBe(1)
  const lines = text.stderr.trimEnd().split("\n")
  expect(lines).toHaveLength(1)
  expect(lines[0]).toMatch(new RegExp(`^error\\[${code}\\]: `))
  expect(lines[0]!.length).toBeLessThan(2000)
  const json = await runCli([...args, "--output", "json"], { cwd, env })
  expect(json.code).toBe(1)
  expect(JSON.parse(json.stdout).error.code).toBe(code)
  return [text, json] as const
}

describe("pcli.toml fixes (binary)", () => {
  it("discover's file cache lives under the project root when run from a subdirectory; file_root defaults to .pcli/elt-state", async () => {
    const defaulted = eltProject(`backend = "file"`)
    const cwd = join(defaulted, "models", "staging")
    const r = await runCli(["discover", "--output", "json"], { cwd })
    expect(r.code).toBe(0)
    const out = JSON.parse(r.stdout)
    expect(out.cache).toMatchObject({ backend: "file", read: "miss", write: "written" })
    expect(existsSync(join(defaulted, ".pcli", "elt-state", out.account_hash, "dest_1.json"))).toBe(true)
    expect(readdirSync(cwd)).toEqual([".keep"])

    const relative = eltProject(`backend = "file"\nfile_root = "cache/elt"`)
    const fromSub = await runCli(["discover", "--output", "json"], { cwd: join(relative, "models", "staging") })
    expect(fromSub.code).toBe(0)
    expect(existsSync(join(relative, "cache", "elt", JSON.parse(fromSub.stdout).account_hash, "dest_1.json"))).toBe(true)
    expect(existsSync(join(relative, "models", "staging", "cache"))).toBe(false)
  })

  it("a wrong-typed secret is named but never shown, even from an unquoted ${VAR} or nested in arrays", async () => {
    const wh = (body: string) => `[adapter.wh]\ntype = "warehouse"\nhost = "h"\nhttp_path = "/p"\n${body}\n`
    for (const body of ["client_secret = ${S}", 'token = [["${S}"], 1]', `token = { a = [${SECRET}] }`]) {
      const cwd = makeProject({ "pcli.toml": wh(body) })
      const results = await expectConfigError(["validate"], cwd, "config-invalid", { S: SECRET })
      expect(results[0].stderr).toMatch(/adapter\.wh\.(client_secret|token): Expected string, got an? (integer|array|table) \(a secret's value is never shown\)/)
      for (const r of results) expect(r.stdout + r.stderr).not.toContain(SECRET)
    }
  })

  it("a dotted key 5,000 levels deep is a toml-syntax error naming the file, not an internal error", async () => {
    const cwd = makeProject({ "pcli.toml": `policy${".a".repeat(5000)} = 1\n` })
    const [text] = await expectConfigError(["validate"], cwd, "toml-syntax")
    expect(text.stderr).toMatch(/pcli\.toml:1: invalid TOML: keys nested more than 64 levels deep/)
  })

  it("echoed values are cut to about 200 characters; terminal escapes in them arrive inert", async () => {
    const cwd = makeProject({ "pcli.toml": `[state]\nnamespace = ["${"x".repeat(1_000_000)}"]\n` })
    const [text, json] = await expectConfigError(["validate"], cwd, "config-invalid")
    expect(text.stderr.length).toBeLessThan(500)
    expect(json.stdout.length).toBeLessThan(700)
    const escaped = makeProject({ "pcli.toml": `[project]\n"\\u001b]0;title\\u0007\\u001b[2J" = 1\n` })
    const [key] = await expectConfigError(["validate"], escaped, "config-unknown-key")
    expect(key.stderr).toContain("project.\\u001b]0;title\\u0007\\u001b[2J")
    expect(key.stderr.trimEnd()).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/)
  })

  it("--config naming a directory says so in plain words", async () => {
    const cwd = makeProject()
    const [text] = await expectConfigError(["validate", "--config", cwd], cwd, "config-unreadable")
    expect(text.stderr.trim()).toBe(`error[config-unreadable]: cannot read ${cwd}: it is a directory; give the path of a pcli.toml file`)
  })

  it("generated configs: exit 0 or 1, one coded stderr line under 2,000 characters, valid JSON, no secret (property, sampled)", async () => {
    const dir = makeProject()
    const file = join(dir, "pcli.toml")
    const check = (r: CliResult, json: boolean) => {
      expect([0, 1]).toContain(r.code)
      if (r.code === 1 && r.stderr !== "") {
        const lines = r.stderr.trimEnd().split("\n")
        expect(lines).toHaveLength(1)
        expect(lines[0]).toMatch(/^error\[[a-z]+(-[a-z]+)*\]: /)
        expect(lines[0]!.length).toBeLessThan(2000)
      }
      if (json) expect(() => JSON.parse(r.stdout)).not.toThrow()
      expect(leaksCanary(r.stdout + r.stderr)).toBe(false)
    }
    await fc.assert(
      fc.asyncProperty(configText, fc.boolean(), async (text, json) => {
        writeFileSync(file, text)
        check(await runCli(["validate", "--config", file, ...(json ? ["--output", "json"] : [])], { cwd: dir, env: canaryEnv }), json)
      }),
      { numRuns: 12 }
    )
  })
})

describe("${VAR}s resolve only for the adapters a command uses (binary)", () => {
  const cwd = () =>
    makeProject({
      "pcli.toml": `[adapter.local]\ntype = "embedded"\n\n[adapter.prod]\ntype = "warehouse"\nhost = "dbc.example.cloud"\nhttp_path = "/sql/1.0/warehouses/abc"\ntoken = "\${PROD_TOKEN}"\n`,
      "models/a.sql": "SELECT 1 AS id",
      "models/a.toml": `name = "a"\n[target]\ncatalog = "w"\nschema = "s"\ntable = "a"\n`
    })

  it("run --target of the embedded adapter needs no variable of the unused warehouse adapter", async () => {
    const r = await runCli(["run", "--target", "local"], { cwd: cwd(), env: { PROD_TOKEN: undefined } })
    expect(r.code, r.stderr).toBe(0)
  })

  it("run choosing the warehouse adapter, and validate (which checks every adapter), need it", async () => {
    const dir = cwd()
    await expectConfigError(["run"], dir, "config-missing-env", {})
    await expectConfigError(["validate"], dir, "config-missing-env", {})
  })
})

describe("a secret nested under the wrong table is still never shown (binary)", () => {
  it("[mask] adapter.wh.token = [canary]", async () => {
    const cwd = makeProject({ "pcli.toml": `[mask]\nadapter.wh.token = ["CANARYqz7"]\n` })
    for (const args of [["validate"], ["validate", "--output", "json"], ["policy", "show"]]) {
      const r = await runCli(args, { cwd })
      expect(r.code).toBe(1)
      expect(r.stdout + r.stderr).not.toContain("CANARYqz7")
    }
  })
})
