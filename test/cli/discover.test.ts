import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { existsSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { makeProject, runCli } from "../support/cli"
import { addTenant, type EltEmulator, makeTenant, startEltEmulator } from "../support/eltEmulator"
import { freePort } from "../support/ports"

const SECRET = "elt-SECRET-987654"

let emulator: EltEmulator
beforeAll(async () => {
  emulator = await startEltEmulator({ latencyMs: 5 })
  addTenant(emulator, makeTenant("key-a", "dest_1", 4, SECRET))
})
afterAll(() => emulator.close())

const project = (cache: string) =>
  makeProject({
    "pcli.toml": `[adapter.elt]\ntype = "elt"\napi_key = "key-a"\napi_secret = "\${ELT_SECRET}"\ndestination_id = "dest_1"\nbase_url = "${emulator.baseUrl}"\n${cache}`
  })
const env = { ELT_SECRET: SECRET }

describe("pcli discover (binary)", () => {
  it("file cache: miss writes, hit makes no API call, --no-cache refreshes and dedupes", async () => {
    const cwd = project(`[adapter.elt.cache]\nbackend = "file"\nfile_root = ".pcli/elt-state"\n`)
    emulator.resetCounts()
    const cold = await runCli(["discover", "--output", "json"], { cwd, env })
    expect(cold.code).toBe(0)
    const first = JSON.parse(cold.stdout)
    expect(first).toMatchObject({ command: "discover", adapter: "elt", destination_id: "dest_1", cache: { backend: "file", read: "miss", write: "written" } })
    expect(first.sources).toHaveLength(4)
    expect(emulator.total()).toBeGreaterThan(4)
    const entry = join(cwd, ".pcli", "elt-state", first.account_hash, "dest_1.json")
    expect(existsSync(entry)).toBe(true)
    const mtime = statSync(entry).mtimeMs

    emulator.resetCounts()
    const warm = await runCli(["discover", "--output", "json"], { cwd, env })
    expect(JSON.parse(warm.stdout).cache.read).toBe("hit")
    expect(emulator.total()).toBe(0)

    const forced = await runCli(["discover", "--no-cache", "--output", "json", "--emit-elt-state-to", "state.json"], { cwd, env })
    expect(JSON.parse(forced.stdout).cache).toEqual({ backend: "file", read: "refresh-forced", write: "skipped" })
    expect(statSync(entry).mtimeMs).toBe(mtime)
    expect(JSON.parse(readFileSync(join(cwd, "state.json"), "utf8")).fetched_at).toBeTypeOf("string")
    for (const r of [cold, warm, forced]) expect(r.stdout + r.stderr).not.toContain(SECRET)
  })

  it("an unreachable Redis never fails discover: it fetches over HTTP and warns on stderr", async () => {
    const port = await freePort()
    const cwd = project(`[adapter.elt.cache]\nbackend = "kv"\nkv_url = "redis://:pw-${SECRET}@127.0.0.1:${port}"\n`)
    const r = await runCli(["discover", "--output", "json"], { cwd, env })
    expect(r.code).toBe(0)
    const out = JSON.parse(r.stdout)
    expect(out.sources).toHaveLength(4)
    expect(out.cache.write).toBe("failed")
    expect(r.stderr).toMatch(/cache/i)
    expect(r.stdout + r.stderr).not.toContain(SECRET)
  })

  it("no elt adapter is a clear error", async () => {
    const cwd = makeProject({ "pcli.toml": `[adapter.x]\ntype = "embedded"\n` })
    const r = await runCli(["discover"], { cwd })
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/^error\[no-elt-adapter\]/)
  })
})
