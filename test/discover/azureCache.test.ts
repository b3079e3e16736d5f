import { BlobServiceClient } from "@azure/storage-blob"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { accountHash } from "../../src/services/DiscoverCache/keys"
import { type AzuriteHandle, connectionStringFor, startAzurite } from "../support/azurite"
import { freePort } from "../support/ports"
import { backendContract } from "./contract"
import { eventTypes, type Harness, outputOf, startHarness } from "./harness"

let h: Harness
let azurite: AzuriteHandle
let service: BlobServiceClient

beforeAll(async () => {
  h = await startHarness()
  azurite = await startAzurite()
  // The SDK's own connection-string variable points at Azurite.
  process.env.AZURE_STORAGE_CONNECTION_STRING = azurite.connectionString
  service = BlobServiceClient.fromConnectionString(azurite.connectionString)
  await service.getContainerClient("pcli-az").create()
})
afterAll(async () => {
  await azurite.stop()
  await h.close()
})

const block = () => ({ backend: "object_store", object_store_url: "az://pcli-az/state/" })
const blobName = (apiKey: string, dest: string) => `state/${accountHash(apiKey)}/${dest}.json`

describe("object_store backend (Azure via Azurite)", () => {
  backendContract({
    backend: "object_store",
    harness: () => h,
    block,
    // Azure ETags are opaque and change on every upload: a changed ETag means a PUT happened.
    writeMarker: async (apiKey, dest) =>
      String((await service.getContainerClient("pcli-az").getBlockBlobClient(blobName(apiKey, dest)).getProperties()).etag)
  })

  it("stores Content-MD5 and pcli_content_hash metadata", async () => {
    const adapter = h.adapter({ apiKey: "az-meta", cache: block() })
    outputOf(await h.run({ adapter }))
    const props = await service.getContainerClient("pcli-az").getBlockBlobClient(blobName("az-meta", "dest_main")).getProperties()
    expect(props.contentMD5?.length).toBe(16)
    expect(props.metadata?.pcli_content_hash).toMatch(/^[0-9a-f]{64}$/)
  })

  it("Azure endpoint down: discover succeeds over HTTP and emits cache_write_failed", async () => {
    const saved = process.env.AZURE_STORAGE_CONNECTION_STRING
    process.env.AZURE_STORAGE_CONNECTION_STRING = connectionStringFor(await freePort())
    try {
      const r = await h.run({ adapter: h.adapter({ apiKey: "az-down", cache: block() }) })
      expect(outputOf(r).sources.length).toBeGreaterThan(0)
      expect(eventTypes(r)).toEqual(["elt.cache_miss", "elt.cache_write_failed"])
    } finally {
      process.env.AZURE_STORAGE_CONNECTION_STRING = saved
    }
  })
})
