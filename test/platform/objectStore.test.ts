import { NodeContext } from "@effect/platform-node"
import { BlobServiceClient } from "@azure/storage-blob"
import { Effect, Exit, Option } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { fromUrl, getText, md5Hex, type ObjectStore, parseObjectStoreUrl } from "../../src/platform/ObjectStore/ObjectStore"
import { type AzuriteHandle, connectionStringFor, startAzurite } from "../support/azurite"
import { type GcsEmulator, startGcsEmulator } from "../support/gcsEmulator"
import { freePort } from "../support/ports"
import { type S3Handle, startS3rver } from "../support/s3rver"

let s3: S3Handle
let azurite: AzuriteHandle
let gcs: GcsEmulator
const fileRoot = fs.mkdtempSync(path.join(os.tmpdir(), "pcli-objects-"))

beforeAll(async () => {
  ;[s3, azurite, gcs] = await Promise.all([startS3rver("pcli-os"), startAzurite(), startGcsEmulator(["pcli-os"])])
  Object.assign(process.env, {
    AWS_ENDPOINT_URL_S3: s3.endpoint,
    AWS_S3_FORCE_PATH_STYLE: "true",
    AWS_REGION: "us-east-1",
    AWS_ACCESS_KEY_ID: "S3RVER",
    AWS_SECRET_ACCESS_KEY: "S3RVER",
    AZURE_STORAGE_CONNECTION_STRING: azurite.connectionString,
    STORAGE_EMULATOR_HOST: gcs.host
  })
  await BlobServiceClient.fromConnectionString(azurite.connectionString).getContainerClient("pcli-os").create()
}, 60_000)
afterAll(async () => {
  await Promise.all([s3.stop(), azurite.stop(), gcs.close()])
  fs.rmSync(fileRoot, { recursive: true, force: true })
})

/** Runs `body` against a store built from `url`, closing its clients afterwards. */
const withStore = <A, E>(url: string, body: (store: ObjectStore) => Effect.Effect<A, E>) =>
  Effect.runPromise(Effect.scoped(Effect.flatMap(fromUrl(url), body)).pipe(Effect.provide(NodeContext.layer)))
const exitOf = <A, E>(url: string, body: (store: ObjectStore) => Effect.Effect<A, E>) =>
  Effect.runPromise(Effect.exit(Effect.scoped(Effect.flatMap(fromUrl(url), body))).pipe(Effect.provide(NodeContext.layer)))

const text = (bytes: Option.Option<Uint8Array>) => Option.map(bytes, (b) => new TextDecoder().decode(b))

const schemes = [
  { name: "file", url: () => pathToFileURL(`${fileRoot}/base/`).href, metadata: false },
  { name: "s3 (s3rver)", url: () => "s3://pcli-os/base/", metadata: true },
  { name: "az (Azurite)", url: () => "az://pcli-os/base/", metadata: true },
  { name: "gs (emulator)", url: () => "gs://pcli-os/base/", metadata: true }
]

describe.each(schemes)("ObjectStore over $name", ({ url, metadata }) => {
  it("head and get of a missing key are None; put then get and head state bytes, MD5 and metadata", async () => {
    const body = '{"hello":"world"}'
    const [missingHead, missingGet, got, facts] = await withStore(url(), (store) =>
      Effect.all([
        store.head("nothing/here.json"),
        store.get("nothing/here.json"),
        Effect.zipRight(store.put("a/one.json", body, { contentType: "application/json", metadata: { "pcli-content-hash": "abc123" } }), store.get("a/one.json")),
        store.head("a/one.json")
      ])
    )
    expect([Option.isNone(missingHead), Option.isNone(missingGet)]).toEqual([true, true])
    expect(text(got)).toEqual(Option.some(body))
    const f = Option.getOrThrow(facts)
    expect(f.md5Hex).toBe(md5Hex(body))
    expect(f.size).toBe(Buffer.byteLength(body))
    if (metadata) expect(f.metadata["pcli-content-hash"]).toBe("abc123")
  })

  it("put replaces; putIfAbsent creates once and then leaves the object alone", async () => {
    const result = await withStore(url(), (store) =>
      Effect.gen(function* () {
        yield* store.put("b/x.txt", "first")
        yield* store.put("b/x.txt", "second")
        const replaced = yield* getText(store, "b/x.txt")
        const created = yield* store.putIfAbsent("b/once.txt", "original")
        const again = yield* store.putIfAbsent("b/once.txt", "intruder")
        const kept = yield* getText(store, "b/once.txt")
        return { replaced, created, again, kept }
      })
    )
    expect(result).toEqual({ replaced: Option.some("second"), created: true, again: false, kept: Option.some("original") })
  })

  it("list returns the sorted keys under a prefix, relative to the URL, and nothing else", async () => {
    const keys = await withStore(url(), (store) =>
      Effect.gen(function* () {
        for (const k of ["l/freeze/b.json", "l/freeze/a.json", "l/unfreeze/c.json", "l/freezer.json", "other/d.json"]) yield* store.put(k, k)
        return yield* Effect.all([store.list("l/freeze/"), store.list("l/"), store.list("l/nothing/")])
      })
    )
    expect(keys).toEqual([
      ["l/freeze/a.json", "l/freeze/b.json"],
      ["l/freeze/a.json", "l/freeze/b.json", "l/freezer.json", "l/unfreeze/c.json"],
      []
    ])
  })

  it("a key that could leave the prefix is refused before any request", async () => {
    for (const key of ["../escape.json", "/abs.json", "a//b.json", ""]) {
      const exit = await exitOf(url(), (store) => store.put(key, "x"))
      expect(Exit.isFailure(exit) && JSON.stringify(exit.cause)).toMatch(/invalid object key/)
    }
    for (const prefix of ["../", "..", "/etc/", "a/../"]) {
      const exit = await exitOf(url(), (store) => store.list(prefix))
      expect(Exit.isFailure(exit) && JSON.stringify(exit.cause)).toMatch(/invalid listing prefix/)
    }
  })
})

describe("ObjectStore URLs and failures", () => {
  it("parses the four schemes and refuses anything else with object-store-url-invalid", async () => {
    expect(parseObjectStoreUrl("s3://bkt/some/prefix/")).toEqual({ scheme: "s3", bucket: "bkt", prefix: "some/prefix/" })
    expect(parseObjectStoreUrl("file:///tmp/x/")).toEqual({ scheme: "file", bucket: "", prefix: "/tmp/x/" })
    for (const [url, message] of [
      ["http://example.com/x", 'unsupported object store URL "http://example.com/x" (use s3://, gs://, az:// or file:///)'],
      ["s3:///nobucket", 'object store URL "s3:///nobucket" has no bucket'],
      ["file://host/x/", 'file URL must be file:///absolute/path/ (got host "host")']
    ]) {
      const error = await Effect.runPromise(Effect.flip(Effect.scoped(fromUrl(url!))).pipe(Effect.provide(NodeContext.layer)))
      expect([error._tag, error.code, error.message]).toEqual(["ObjectStoreUrlInvalid", "object-store-url-invalid", message])
    }
  })

  it("an unreachable endpoint is an ObjectStoreError naming the URL and the operation", async () => {
    const saved = process.env.AWS_ENDPOINT_URL_S3
    process.env.AWS_ENDPOINT_URL_S3 = `http://127.0.0.1:${await freePort()}`
    try {
      const error = await withStore("s3://pcli-os/down/", (store) => Effect.flip(store.put("k.json", "x")))
      expect([error._tag, error.code, error.operation]).toEqual(["ObjectStoreError", "object-store-failed", "put"])
      expect(error.message).toMatch(/^object store s3:\/\/pcli-os\/down\/: put down\/k\.json failed: /)
    } finally {
      process.env.AWS_ENDPOINT_URL_S3 = saved
    }
    const savedAz = process.env.AZURE_STORAGE_CONNECTION_STRING
    process.env.AZURE_STORAGE_CONNECTION_STRING = connectionStringFor(await freePort())
    try {
      const error = await withStore("az://pcli-os/down/", (store) => Effect.flip(store.list("")))
      expect([error.code, error.operation]).toEqual(["object-store-failed", "list"])
    } finally {
      process.env.AZURE_STORAGE_CONNECTION_STRING = savedAz
    }
  })

  it("file:// skips staged siblings when listing and writes nothing outside its directory", async () => {
    const url = pathToFileURL(`${fileRoot}/staged/`).href
    fs.mkdirSync(path.join(fileRoot, "staged", "freeze"), { recursive: true })
    fs.writeFileSync(path.join(fileRoot, "staged", "freeze", ".a.json.0123456789ab.tmp"), "half")
    const keys = await withStore(url, (store) => Effect.zipRight(store.put("freeze/a.json", "{}"), store.list("freeze/")))
    expect(keys).toEqual(["freeze/a.json"])
  })
})
