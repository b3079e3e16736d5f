import { ConfigProvider, Effect } from "effect"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Telemetry from "../../src/services/Telemetry/Telemetry"

/** A bare OTLP/HTTP receiver: records the paths and sizes of what the exporter POSTs. */
let server: http.Server
const received: Array<{ path: string; bytes: number; contentType: string }> = []
let endpoint = ""

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      received.push({ path: req.url ?? "", bytes: Buffer.concat(chunks).length, contentType: String(req.headers["content-type"]) })
      res.writeHead(200, { "content-type": "application/json" })
      res.end("{}")
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

const spanWithEvent = Effect.gen(function* () {
  const span = yield* Effect.currentSpan
  span.event("elt.cache_hit", 0n, { "pcli.backend": "file" })
}).pipe(Effect.withSpan("pcli.discover"))

describe("Telemetry.layerFromEnv", () => {
  it("without OTEL_EXPORTER_OTLP_ENDPOINT exports nothing", async () => {
    const before = received.length
    await Effect.runPromise(
      spanWithEvent.pipe(Effect.provide(Telemetry.layerFromEnv), Effect.withConfigProvider(ConfigProvider.fromMap(new Map())))
    )
    expect(received.length).toBe(before)
  })

  it("with OTEL_EXPORTER_OTLP_ENDPOINT, spans are POSTed to <endpoint>/v1/traces (flushed at shutdown)", async () => {
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = endpoint
    try {
      await Effect.runPromise(
        spanWithEvent.pipe(
          Effect.provide(Telemetry.layerFromEnv),
          Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["OTEL_EXPORTER_OTLP_ENDPOINT", endpoint]])))
        )
      )
    } finally {
      delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT
    }
    expect(received.some((r) => r.path === "/v1/traces" && r.bytes > 0)).toBe(true)
  })
})
