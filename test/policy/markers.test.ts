import { NodeContext } from "@effect/platform-node"
import { BlobServiceClient } from "@azure/storage-blob"
import { Chunk, Effect, Stream } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { fromUrl } from "../../src/platform/ObjectStore/ObjectStore"
import { Ledger } from "../../src/services/Ledger/Ledger"
import { policyFreeze } from "../../src/commands/policyFreeze"
import type { ActingPrincipal } from "../../src/services/Principal/Principal"
import { policyShow } from "../../src/commands/policyShow"
import { policyUnfreeze } from "../../src/commands/policyUnfreeze"
import { PolicyEngine, type PolicySettings } from "../../src/services/PolicyEngine/PolicyEngine"
import { type AzuriteHandle, connectionStringFor, startAzurite } from "../support/azurite"
import { type GcsEmulator, startGcsEmulator } from "../support/gcsEmulator"
import { freePort } from "../support/ports"
import { type S3Handle, startS3rver } from "../support/s3rver"
import { loadPolicy, model } from "./support/config"
import { engineLayer } from "./support/engine"
import { actingAs } from "./support/principal"

let s3: S3Handle
let azurite: AzuriteHandle
let azure: BlobServiceClient
let gcs: GcsEmulator

beforeAll(async () => {
  ;[s3, azurite, gcs] = await Promise.all([startS3rver("pcli-markers"), startAzurite(), startGcsEmulator(["pcli-markers"])])
  Object.assign(process.env, {
    AWS_ENDPOINT_URL_S3: s3.endpoint,
    AWS_S3_FORCE_PATH_STYLE: "true",
    AWS_REGION: "us-east-1",
    AWS_ACCESS_KEY_ID: "S3RVER",
    AWS_SECRET_ACCESS_KEY: "S3RVER",
    AZURE_STORAGE_CONNECTION_STRING: azurite.connectionString,
    STORAGE_EMULATOR_HOST: gcs.host
  })
  azure = BlobServiceClient.fromConnectionString(azurite.connectionString)
  await azure.getContainerClient("pcli-markers").create()
}, 60_000)
afterAll(async () => {
  await Promise.all([s3.stop(), azurite.stop(), gcs.close()])
})

const human: ActingPrincipal = { class: "human", id: "oncall", source: "flag" }
const withMarkers = { ...loadPolicy(`[policy]\nversion = 1\ndefault_agent_effect = "allow"\n`), freeze_marker_writes: true }
const settings = (url: string): PolicySettings => ({ configPresent: true, policy: withMarkers, ledger: { kind: "remote" }, objectStoreUrl: url })
const gold = model({ name: "fct_orders", tags: { layer: "gold" } })
const allRows = Effect.flatMap(Ledger, (l) => Effect.map(Stream.runCollect(l.query({})), Chunk.toReadonlyArray))

/** Runs `body` on an engine over `url` with a fresh, empty ledger (another machine sharing the object tier). */
const run = <A, E>(url: string, body: Effect.Effect<A, E, PolicyEngine | Ledger>) => Effect.runPromise(body.pipe(Effect.provide(engineLayer(settings(url)))))
const gateEffect = (url: string, principal: "agent" | "human") =>
  run(
    url,
    Effect.flatMap(PolicyEngine, (e) => e.gate(principal, "apply", [gold])).pipe(
      Effect.map((o) => (o._tag === "Evaluated" ? o.verdicts[0]!.effect : "not-configured"))
    )
  )
let n = 0
const fresh = () => `p${++n}-${Math.random().toString(36).slice(2, 8)}`

/** Object names the server itself holds under `prefix` (not read through the code under test). */
const backends = [
  {
    name: "s3 (s3rver)",
    url: (p: string) => `s3://pcli-markers/${p}/`,
    stored: async (p: string) => s3.puts.filter((k) => k.startsWith(`${p}/`)).sort(),
    down: async () => ({ AWS_ENDPOINT_URL_S3: `http://127.0.0.1:${await freePort()}` })
  },
  {
    name: "az (Azurite)",
    url: (p: string) => `az://pcli-markers/${p}/`,
    stored: async (p: string) => {
      const names: Array<string> = []
      for await (const b of azure.getContainerClient("pcli-markers").listBlobsFlat({ prefix: `${p}/` })) names.push(b.name)
      return names.sort()
    },
    down: async () => ({ AZURE_STORAGE_CONNECTION_STRING: connectionStringFor(await freePort()) })
  },
  {
    name: "gs (emulator)",
    url: (p: string) => `gs://pcli-markers/${p}/`,
    stored: async (p: string) => gcs.inserts.filter((k) => k.startsWith(`${p}/`)).sort(),
    down: async () => ({ STORAGE_EMULATOR_HOST: `http://127.0.0.1:${await freePort()}` })
  }
]

describe.each(backends)("freeze markers over $name", (b) => {
  it("freeze and unfreeze write markers the server holds; another machine's gate obeys them with an empty ledger", async () => {
    const prefix = fresh()
    const url = b.url(prefix)
    await run(url, actingAs(human)(policyFreeze({ principal: "agent", scope: "layer=gold", reason: "incident 12" })))
    const frozen = await b.stored(prefix)
    expect(frozen).toHaveLength(1)
    expect(frozen[0]).toMatch(new RegExp(`^${prefix}/freeze/[0-9a-f-]{36}\\.json$`))
    expect(await gateEffect(url, "agent")).toBe("deny")
    expect(await gateEffect(url, "human")).toBe("allow")
    const shown = await run(url, policyShow)
    expect([shown.freeze_sources.markers, shown.freezes.map((f) => [f.source, f.principal, f.scope, f.reason])]).toEqual([
      "read",
      [["marker", "agent", "layer=gold", "incident 12"]]
    ])
    // The unfreezing machine has no ledger row of the freeze: the marker is what it lifts.
    const lifted = await run(url, actingAs(human)(policyUnfreeze({ principal: "agent", scope: "layer=gold" })))
    expect(lifted.entries.map((e) => e.principal)).toEqual(["agent"])
    expect((await b.stored(prefix)).filter((k) => k.includes("/unfreeze/"))).toHaveLength(1)
    expect(await gateEffect(url, "agent")).toBe("allow")
  })

  it("an unreadable freeze marker widens to both principals", async () => {
    const url = b.url(fresh())
    await Effect.runPromise(Effect.scoped(Effect.flatMap(fromUrl(url), (s) => s.put("freeze/garbled.json", '{"freeze_id": tru'))).pipe(Effect.provide(NodeContext.layer)))
    expect(await gateEffect(url, "human")).toBe("deny")
    expect(await gateEffect(url, "agent")).toBe("deny")
  })

  it("an unreachable store: the freeze fails with freeze-marker-write-failed and no ledger row is left behind", async () => {
    const url = b.url(fresh())
    const outage = await b.down()
    const saved = Object.fromEntries(Object.keys(outage).map((k) => [k, process.env[k]]))
    Object.assign(process.env, outage)
    try {
      const [error, rows] = await run(url, Effect.zip(Effect.flip(actingAs(human)(policyFreeze({ scope: "any" }))), allRows))
      expect(error.code).toBe("freeze-marker-write-failed")
      expect(error.message).toMatch(new RegExp(`^cannot write freeze marker to ${url.replace(/[/.]/g, "\\$&")}: `))
      expect(rows).toEqual([])
    } finally {
      Object.assign(process.env, saved)
    }
  })
})

describe("freeze markers: a PUT that fails while reads work (GCS emulator outage on inserts)", () => {
  it("an unfreeze whose marker cannot be written records no row and lifts nothing", async () => {
    const url = `gs://pcli-markers/${fresh()}/`
    const [error, rows, shown] = await run(
      url,
      Effect.gen(function* () {
        yield* actingAs(human)(policyFreeze({ principal: "agent", scope: "any" }))
        gcs.failInserts = true
        const error = yield* Effect.flip(actingAs(human)(policyUnfreeze({ principal: "agent", scope: "any" })))
        gcs.failInserts = false
        return [error, yield* allRows, yield* policyShow] as const
      }).pipe(Effect.ensuring(Effect.sync(() => (gcs.failInserts = false))))
    )
    expect(error.code).toBe("freeze-marker-write-failed")
    expect(error.message).toMatch(/503|Service Unavailable/)
    expect(rows.map((r) => r.kind)).toEqual(["freeze"])
    expect(shown.freezes.map((f) => f.source)).toEqual(["ledger", "marker"])
  })
})
