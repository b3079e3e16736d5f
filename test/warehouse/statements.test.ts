import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { afterAll, beforeAll } from "vitest"
import { layerFromAdapter } from "../../src/services/WarehouseClient/layer"
import { WarehouseStatements } from "../../src/services/WarehouseClient/statements"
import type { WarehouseClientOptions } from "../../src/services/WarehouseClient/WarehouseClient"
import { generateLoopbackCertificate, type LoopbackCertificate } from "../support/tls"
import { startWarehouseEmulator, type WarehouseEmulator } from "../support/warehouseEmulator"
import { adapterFor, captureLogs, envLayer, fastRetry, httpClientTrusting, PAT } from "./fixtures"

let certificate: LoopbackCertificate
let emulator: WarehouseEmulator

beforeAll(async () => {
  certificate = await generateLoopbackCertificate()
  emulator = await startWarehouseEmulator({ personalTokens: [PAT], chunkRows: 7, certificate })
})
afterAll(() => emulator.close())

const services = (fields: Parameters<typeof adapterFor>[1] = { token: PAT }, options: WarehouseClientOptions = { retry: fastRetry }) =>
  layerFromAdapter("wh", adapterFor(emulator, fields), options).pipe(
    Layer.provide(httpClientTrusting(certificate.caPem)),
    Layer.provide(envLayer())
  )

const execute = (sql: string) => Effect.flatMap(WarehouseStatements, (s) => s.execute(sql))

describe("warehouse statements", () => {
  it.live("reads a multi-chunk result whole", () =>
    Effect.gen(function* () {
      emulator.resetCounts()
      const result = yield* execute("SELECT i::INTEGER AS i, 'r' || i AS label FROM range(100) t(i) ORDER BY i")
      expect(result.rows).toHaveLength(100)
      expect(result.rows[0]).toEqual([0, "r0"])
      expect(result.rows[99]).toEqual([99, "r99"])
      expect(result.columns).toEqual([
        { name: "i", type: "INT" },
        { name: "label", type: "STRING" }
      ])
      expect(emulator.count("chunk")).toBe(14)
    }).pipe(Effect.provide(services()))
  )
})
