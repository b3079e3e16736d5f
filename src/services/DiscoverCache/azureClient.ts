import { Config, Effect, Option, Redacted } from "effect"
import { CacheObjectStoreError } from "./errors"
import { describe, type ObjectClient, sdkCall, sdkLookup } from "./ObjectClient"

/** Azure metadata names must be identifiers, so the hash key uses underscores here. */
const AZURE_HASH_METADATA = "pcli_content_hash"

/**
 * Azure Blob through @azure/storage-blob (imported on this path only). Credentials, in the
 * SDK's own variables: `AZURE_STORAGE_CONNECTION_STRING` (also how Azurite is reached), else
 * `AZURE_STORAGE_ACCOUNT` + `AZURE_STORAGE_KEY`. (@azure/identity's chain is not installed.)
 */
export const makeAzureClient = (containerName: string) =>
  Effect.gen(function* () {
    const connectionString = yield* Config.option(Config.redacted("AZURE_STORAGE_CONNECTION_STRING"))
    const account = yield* Config.option(Config.nonEmptyString("AZURE_STORAGE_ACCOUNT"))
    const accountKey = yield* Config.option(Config.redacted("AZURE_STORAGE_KEY"))
    const sdk = yield* Effect.tryPromise({
      try: () => import("@azure/storage-blob"),
      catch: (e) => new CacheObjectStoreError({ backend: "object_store", operation: "connect", detail: describe(e) })
    })
    const pipelineOptions = { retryOptions: { maxTries: 2, tryTimeoutInMs: 15_000 } }
    const service = yield* Effect.try({
      try: () =>
        Option.isSome(connectionString)
          ? sdk.BlobServiceClient.fromConnectionString(Redacted.value(connectionString.value), pipelineOptions)
          : Option.isSome(account) && Option.isSome(accountKey)
            ? new sdk.BlobServiceClient(
                `https://${account.value}.blob.core.windows.net`,
                new sdk.StorageSharedKeyCredential(account.value, Redacted.value(accountKey.value)),
                pipelineOptions
              )
            : undefined,
      catch: (e) => new CacheObjectStoreError({ backend: "object_store", operation: "connect", detail: describe(e) })
    })
    if (service === undefined) {
      return yield* new CacheObjectStoreError({
        backend: "object_store",
        operation: "connect",
        detail: "no Azure credentials: set AZURE_STORAGE_CONNECTION_STRING or AZURE_STORAGE_ACCOUNT + AZURE_STORAGE_KEY"
      })
    }
    const container = service.getContainerClient(containerName)
    const isNotFound = (e: unknown) => (e as { statusCode?: unknown }).statusCode === 404

    const objectClient: ObjectClient = {
      head: (name) =>
        sdkLookup("head", () => container.getBlockBlobClient(name).getProperties(), isNotFound).pipe(
          Effect.map(
            Option.map((p) => ({
              md5Hex: p.contentMD5 === undefined ? undefined : Buffer.from(p.contentMD5).toString("hex"),
              contentHash: p.metadata?.[AZURE_HASH_METADATA]
            }))
          )
        ),
      get: (name) =>
        sdkLookup("get", () => container.getBlockBlobClient(name).downloadToBuffer(), isNotFound).pipe(
          Effect.map(Option.map((bytes) => bytes.toString("utf8")))
        ),
      put: (name, body, facts) =>
        sdkCall("put", () =>
          container.getBlockBlobClient(name).upload(body, Buffer.byteLength(body), {
            blobHTTPHeaders: { blobContentType: "application/json", blobContentMD5: Buffer.from(facts.md5Base64, "base64") },
            metadata: { [AZURE_HASH_METADATA]: facts.contentHash }
          })
        ).pipe(Effect.asVoid)
    }
    return objectClient
  })
