import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { bundleChildScript } from "../support/childScript"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { RedisHandle } from "../support/redis"
import { spawnTlsRedis } from "../support/redis"

let tls: { handle: RedisHandle; caFile: string } | { skip: string }

beforeAll(async () => {
  tls = await spawnTlsRedis()
})
afterAll(async () => {
  if ("handle" in tls) await tls.handle.stop()
})

describe("kv backend over rediss:// (TLS)", () => {
  it("writes then hits through a TLS Redis whose certificate is trusted via NODE_EXTRA_CA_CERTS", async (ctx) => {
    if ("skip" in tls) {
      ctx.skip(tls.skip)
      return
    }
    // NODE_EXTRA_CA_CERTS is read at process start only, so the scenario runs in a child node.
    // Inside the project so the external packages resolve from its node_modules.
    const script = await bundleChildScript(path.join(__dirname, "fixtures", "redissChild.ts"), "rediss")
    const outfile = script.file
    const child = spawnSync(process.execPath, [outfile], {
      cwd: path.join(__dirname, "..", ".."),
      env: { ...process.env, NODE_EXTRA_CA_CERTS: tls.caFile, PCLI_TEST_REDISS_URL: tls.handle.url },
      encoding: "utf8",
      timeout: 60_000
    })
    script.remove()
    expect(child.stderr).toBe("")
    const result = JSON.parse(child.stdout.slice(child.stdout.indexOf('{"first"')))
    expect(result.first).toEqual(["elt.cache_miss", "elt.cache_write"])
    expect(result.firstCache).toEqual({ backend: "kv", read: "miss", write: "written" })
    expect(result.second).toEqual(["elt.cache_hit"])
    expect(result.secondApiCalls).toBe(0)
  })
})
