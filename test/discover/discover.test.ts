import { Either, Schema } from "effect"
import { build } from "esbuild"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DiscoverOutput, EnvelopeFromJson } from "../../src/schemas/discover"
import { type Harness, outputOf, startHarness, tmpDir } from "./harness"

let h: Harness
const dir = tmpDir("discover-flow")
beforeAll(async () => {
  h = await startHarness()
})
afterAll(async () => {
  await h.close()
  fs.rmSync(dir, { recursive: true, force: true })
})

const failure = (r: Awaited<ReturnType<Harness["run"]>>) => {
  if (Either.isRight(r.output)) throw new Error("expected a failure")
  return r.output.left
}

describe("discover flow", () => {
  it("output: command first, connected sources only, enabled tables of enabled schemas, destination names, sorted", async () => {
    const r = await h.run({ adapter: h.adapter({ apiKey: "flow-output", connectors: 8 }) })
    const out = outputOf(r)
    expect(Object.keys(out)[0]).toBe("command")
    expect(Schema.is(DiscoverOutput)(out)).toBe(true)
    // makeTenant marks every 7th connector incomplete.
    expect(out.sources.map((s) => s.id)).toEqual(["conn_000", "conn_001", "conn_002", "conn_003", "conn_004", "conn_005", "conn_007"])
    expect(out.sources[0]).toEqual({
      id: "conn_000",
      name: "source 0",
      schema: "src_0",
      service: "postgres",
      source_type: "elt",
      paused: false,
      last_sync_at: "2026-01-02T03:04:05Z",
      tables: [{ name: "customers" }, { name: "orders" }]
    })
  })

  it("--emit-elt-state-to writes the envelope as pretty JSON, staged then renamed; also on a cache hit", async () => {
    const target = path.join(dir, "nested", "state.json")
    const adapter = h.adapter({ apiKey: "flow-emit", cache: { backend: "file", file_root: path.join(dir, "cache") } })
    const cold = outputOf(await h.run({ adapter, emitTo: target }))
    expect(cold.emitted_to).toBe(target)
    const text = fs.readFileSync(target, "utf8")
    expect(text.startsWith('{\n  "version": "1.0",\n  "fetched_at"')).toBe(true)
    const env = Schema.decodeUnknownSync(EnvelopeFromJson)(text)
    expect(env.fetched_at).toBe(cold.fetched_at)
    expect(fs.readdirSync(path.dirname(target))).toEqual(["state.json"])
    fs.rmSync(target)
    const warm = await h.run({ adapter, emitTo: target })
    expect(warm.apiCalls).toBe(0)
    expect(fs.existsSync(target)).toBe(true)
  })

  it("an unwritable emit path fails discover with a coded error", async () => {
    const blocker = path.join(dir, "blocker")
    fs.writeFileSync(blocker, "")
    const r = await h.run({ adapter: h.adapter({ apiKey: "flow-emit-fail" }), emitTo: path.join(blocker, "state.json") })
    expect(failure(r)).toMatchObject({ _tag: "EmitStateFailed", code: "discover-emit-failed" })
  })

  it("an unusable cache block is a config error (not fail-open) and names the adapter", async () => {
    const noRoot = await h.run({ adapter: h.adapter({ apiKey: "flow-cfg", cache: { backend: "file" } }) })
    expect(failure(noRoot)).toMatchObject({ _tag: "CacheConfigInvalid", code: "cache-config-invalid" })
    expect(failure(noRoot).message).toBe("[adapter.elt_main.cache] backend file: file_root is required")
    const badUrl = await h.run({ adapter: h.adapter({ apiKey: "flow-cfg", cache: { backend: "object_store", object_store_url: "ftp://x/y" } }) })
    expect(failure(badUrl).message).toMatch(/unsupported object_store_url/)
    const badKv = await h.run({ adapter: h.adapter({ apiKey: "flow-cfg", cache: { backend: "kv", kv_url: "http://:pw-in-url@host" } }) })
    expect(failure(badKv).message).toMatch(/kv_url must start with redis:\/\/ or rediss:\/\//)
    expect(failure(badKv).message).not.toContain("pw-in-url")
    const tieredMissing = await h.run({ adapter: h.adapter({ apiKey: "flow-cfg", cache: { backend: "tiered", kv_url: "redis://127.0.0.1:1" } }) })
    expect(failure(tieredMissing).message).toMatch(/object_store_url is required/)
    expect(noRoot.apiCalls + badUrl.apiCalls + badKv.apiCalls + tieredMissing.apiCalls).toBe(0)
  })

  it("API failures surface as typed errors with a code", async () => {
    const adapter = h.adapter({ apiKey: "flow-api-fail" })
    const wrong = { ...adapter, destination_id: "no_such_destination" }
    const r = await h.run({ adapter: wrong })
    expect(failure(r)).toMatchObject({ _tag: "EltHttpStatus", code: "elt-http-status" })
  })
})

describe("lazy loading", () => {
  it("cloud SDKs, ioredis and the OTLP exporter are only imported dynamically", async () => {
    const result = await build({
      entryPoints: [
        path.join(__dirname, "..", "..", "src", "services", "Discover", "Discover.ts"),
        path.join(__dirname, "..", "..", "src", "services", "Telemetry", "Telemetry.ts")
      ],
      bundle: true,
      platform: "node",
      format: "esm",
      packages: "external",
      write: false,
      outdir: "out",
      logLevel: "silent"
    })
    const code = result.outputFiles.map((f) => f.text).join("\n")
    for (const pkg of ["@aws-sdk/client-s3", "@google-cloud/storage", "@azure/storage-blob", "ioredis", "@opentelemetry/exporter-trace-otlp-http", "@effect/opentelemetry"]) {
      const escaped = pkg.replace(/[/.]/g, "\\$&")
      expect(code).toMatch(new RegExp(`import\\("${escaped}`))
      expect(code).not.toMatch(new RegExp(`from "${escaped}"`))
    }
  })
})
