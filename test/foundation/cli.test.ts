import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { existsSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { CURRENT_SCHEMA_VERSION } from "../../src/services/StateStore/migrations"
import { makeProject, runCli } from "../support/cli"
import { setSchemaVersion, writeStoreAtVersion } from "../support/stateStore"

const warehouseBlock = (name: string, body: string) =>
  `[adapter.${name}]\ntype = "warehouse"\nhost = "dbc.example.cloud"\nhttp_path = "/sql/1.0/warehouses/abc"\n${body}\n`

const SECRET = "dapi-TOPSECRET-0123456789"

describe("pcli (binary)", () => {
  it("--help lists the commands and exits 0, without colour codes when piped", async () => {
    const r = await runCli(["--help"], { cwd: makeProject() })
    expect(r.code).toBe(0)
    expect(r.stdout).toContain("validate")
    expect(r.stdout).not.toContain("\u001b[")
    const sub = await runCli(["run", "--help"], { cwd: makeProject() })
    expect(sub.stdout).toContain("partial failure")
    expect(sub.stdout).not.toContain("\u001b[")
  })

  it("validate passes with a token or with client credentials, in text and JSON", async () => {
    const cwd = makeProject({
      "pcli.toml":
        warehouseBlock("pat", `token = "\${PAT_TOKEN}"`) +
        warehouseBlock("m2m", `client_id = "svc"\nclient_secret = "\${SVC_SECRET}"`)
    })
    const env = { PAT_TOKEN: SECRET, SVC_SECRET: SECRET }
    const text = await runCli(["validate"], { cwd, env })
    expect(text.code).toBe(0)
    expect(text.stdout).toMatch(/ok\s+V011\s+adapter\.pat: personal access token/)
    expect(text.stdout).toMatch(/ok\s+V011\s+adapter\.m2m: OAuth client credentials/)
    const json = await runCli(["validate", "--output", "json"], { cwd, env })
    expect(json.code).toBe(0)
    const out = JSON.parse(json.stdout)
    expect(Object.keys(out)).toEqual(["command", "ok", "config_path", "findings", "errors", "warnings"])
    expect(out.command).toBe("validate")
    expect(json.stdout.endsWith("}\n")).toBe(true)
    expect(json.stdout).toContain('\n  "command": "validate"')
    for (const r of [text, json]) expect(r.stdout + r.stderr).not.toContain(SECRET)
  })

  it("validate names the adapter and both fixes when no method is configured; exit 1", async () => {
    const cwd = makeProject({ "pcli.toml": warehouseBlock("wh", `token = ""\nclient_id = "only-id"`) })
    const r = await runCli(["validate"], { cwd })
    expect(r.code).toBe(1)
    expect(r.stdout).toMatch(/error\s+V010\s+adapter\.wh: no warehouse credentials for adapter\.wh/)
    expect(r.stdout).toContain("WAREHOUSE_TOKEN")
    expect(r.stdout).toContain("client_id and client_secret")
  })

  it("the environment's WAREHOUSE_TOKEN counts as a method", async () => {
    const cwd = makeProject({ "pcli.toml": warehouseBlock("wh", "") })
    expect((await runCli(["validate"], { cwd, env: { WAREHOUSE_TOKEN: SECRET } })).code).toBe(0)
  })

  it("config errors are one line with a stable code, exit 1, in text and JSON", async () => {
    const cases: Array<[string, string, RegExp]> = [
      ["malformed", `[adapter.wh\ntype = 1`, /^error\[toml-syntax\]: .*pcli\.toml:1: invalid TOML/],
      ["unknown key", warehouseBlock("wh", `tokn = "x"`), /^error\[config-unknown-key\]: .*pcli\.toml:5: unknown key adapter\.wh\.tokn$/],
      ["wrong type", `[state]\nnamespace = 3\n`, /^error\[config-invalid\]: .*pcli\.toml:2: state\.namespace: Expected string, actual 3$/],
      ["missing var", warehouseBlock("wh", `token = "\${NOPE_VAR}"`), /^error\[config-missing-env\]: .*pcli\.toml:5: environment variable NOPE_VAR is not set/]
    ]
    for (const [, toml, pattern] of cases) {
      const cwd = makeProject({ "pcli.toml": toml })
      const text = await runCli(["validate"], { cwd })
      expect(text.code).toBe(1)
      expect(text.stderr.trim().split("\n")).toHaveLength(1)
      expect(text.stderr.trim()).toMatch(pattern)
      expect(text.stderr).not.toMatch(/\n\s+at /)
      const json = await runCli(["validate", "--output", "json"], { cwd })
      expect(json.code).toBe(1)
      const body = JSON.parse(json.stdout)
      expect(Object.keys(body)).toEqual(["error"])
      expect(Object.keys(body.error)).toEqual(["code", "message"])
    }
  })

  it("an unreadable or missing config is an error, not a crash", async () => {
    const cwd = makeProject()
    const missing = await runCli(["validate"], { cwd })
    expect(missing.code).toBe(1)
    expect(missing.stderr).toMatch(/^error\[config-not-found\]/)
    const explicit = await runCli(["validate", "--config", join(cwd, "nope.toml")], { cwd })
    expect(explicit.stderr).toMatch(/^error\[config-unreadable\]: cannot read .*nope\.toml: no such file/)
  })

  it("secrets never reach output, even in errors about the block that holds them", async () => {
    const cwd = makeProject({
      "pcli.toml":
        warehouseBlock("wh", `token = "${SECRET}"\nclient_secret = "${SECRET}"`) +
        `[adapter.e]\ntype = "elt"\napi_key = "k"\napi_secret = "${SECRET}"\ndestination_id = "d"\n` +
        `[adapter.e.cache]\nbackend = "kv"\nkv_url = "redis://:${SECRET}@127.0.0.1:6379"\nkv_ttl_seconds = "soon"\n`
    })
    for (const args of [["validate"], ["validate", "--output", "json"]]) {
      const r = await runCli(args, { cwd })
      expect(r.code).toBe(1)
      expect(r.stderr).toContain("kv_ttl_seconds")
      expect(r.stdout + r.stderr).not.toContain(SECRET)
    }
  })

  it("an unknown flag is a usage error, exit 2", async () => {
    const r = await runCli(["validate", "--bogus"], { cwd: makeProject() })
    expect(r.code).toBe(2)
    expect(r.stderr).toContain("--bogus")
    expect(r.stderr).not.toContain("\u001b[")
    const json = await runCli(["validate", "--bogus", "--output", "json"], { cwd: makeProject() })
    expect(json.code).toBe(2)
    expect(JSON.parse(json.stdout)).toEqual({ error: { code: "usage", message: "unknown flag --bogus" } })
  })

  it("an invalid PCLI_PRINCIPAL or --principal-id is refused with its own code", async () => {
    const cwd = makeProject({ "pcli.toml": `[adapter.x]\ntype = "embedded"\n` })
    const badClass = await runCli(["validate"], { cwd, env: { PCLI_PRINCIPAL: "robot" } })
    expect(badClass.code).toBe(1)
    expect(badClass.stderr.trim()).toBe('error[invalid-principal]: PCLI_PRINCIPAL must be "human" or "agent", got "robot"')
    const badId = await runCli(["validate", "--principal-id", "Not Valid"], { cwd })
    expect(badId.code).toBe(1)
    expect(badId.stderr).toMatch(/^error\[invalid-principal-id\]: --principal-id must match/)
    const badEnvId = await runCli(["validate"], { cwd, env: { PCLI_PRINCIPAL_ID: "x".repeat(64) } })
    expect(badEnvId.stderr).toMatch(/^error\[invalid-principal-id\]: PCLI_PRINCIPAL_ID must match/)
    expect((await runCli(["validate", "--principal-id", "ci-bot.7"], { cwd, env: { PCLI_PRINCIPAL: "agent" } })).code).toBe(0)
  })

  it("state info: a missing store is reported, not created; a newer store is refused", async () => {
    const cwd = makeProject()
    const r = await runCli(["state", "info", "--output", "json"], { cwd })
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout)).toMatchObject({ command: "state_info", exists: false, schema_version: CURRENT_SCHEMA_VERSION })
    expect(existsSync(join(cwd, "models", ".pcli-state.sqlite"))).toBe(false)

    const path = join(cwd, "models", ".pcli-state.sqlite")
    const { mkdirSync } = await import("node:fs")
    mkdirSync(join(cwd, "models"), { recursive: true })
    await Effect.runPromise(writeStoreAtVersion(path, CURRENT_SCHEMA_VERSION).pipe(Effect.zipRight(setSchemaVersion(path, 99))))
    const newer = await runCli(["state", "info"], { cwd })
    expect(newer.code).toBe(1)
    expect(newer.stderr).toMatch(/^error\[state-store-newer\]: .*schema version 99.*supports up to version \d+/)
  })

  it("state info leaves a current store byte-identical; --state-namespace picks its own file", async () => {
    const cwd = makeProject({ "pcli.toml": `[state]\nnamespace = "ci"\n` })
    const path = join(cwd, "models", ".pcli-state", "ci.sqlite")
    const { mkdirSync } = await import("node:fs")
    mkdirSync(join(cwd, "models", ".pcli-state"), { recursive: true })
    await Effect.runPromise(writeStoreAtVersion(path, CURRENT_SCHEMA_VERSION))
    const before = readFileSync(path)
    const mtime = statSync(path).mtimeMs
    const r = await runCli(["state", "info", "--output", "json"], { cwd })
    expect(JSON.parse(r.stdout)).toMatchObject({ path: join(cwd, "models", ".pcli-state", "ci.sqlite"), exists: true })
    expect(readFileSync(path).equals(before)).toBe(true)
    expect(statSync(path).mtimeMs).toBe(mtime)
    const other = await runCli(["state", "info", "--output", "json", "--state-namespace", "dev"], { cwd })
    expect(JSON.parse(other.stdout).path).toBe(join(cwd, "models", ".pcli-state", "dev.sqlite"))
    const bad = await runCli(["state", "info", "--state-namespace", "../escape"], { cwd })
    expect(bad.code).toBe(1)
    expect(bad.stderr).toMatch(/^error\[invalid-state-namespace\]/)
  })
})
