import { Config, Effect, Option, Redacted } from "effect"
import { CacheObjectStoreError } from "./errors"
import { describe, type ObjectClient, sdkCall, sdkLookup } from "./ObjectClient"

/** Azure metadata names must be identifiers, so the hash key uses underscores here. */
const AZURE_HASH_METADATA = "pcli_content_hash"

export type AzureCredentialSource = "connection_string" | "shared_key" | "default_chain" | "none"

/**
 * Which credential the SDK gets, in its own variables: a connection string (also how Azurite
 * is reached), else account + key, else the account with @azure/identity's default chain
 * (environment, workload or managed identity, Azure CLI, ...).
 */
export const azureCredentialSource = (has: {
  readonly connectionString: boolean
  readonly account: boolean
  readonly accountKey: boolean
}): AzureCredentialSource =>
  has.connectionString ? "connection_string" : has.account ? (has.accountKey ? "shared_key" : "default_chain") : "none"

const connectFailed = (e: unknown) => new CacheObjectStoreError({ backend: "object_store", operation: "connect", detail: describe(e) })

/** Azure Blob through @azure/storage-blob (and @azure/identity for the default chain), imported on this path only. */
export const makeAzureClient = (containerName: string) =>
  Effect.gen(function* () {
    const connectionString = yield* Config.option(Config.redacted("AZURE_STORAGE_CONNECTION_STRING"))
    const account = yield* Config.option(Config.nonEmptyString("AZURE_STORAGE_ACCOUNT"))
    const accountKey = yield* Config.option(Config.redacted("AZURE_STORAGE_KEY"))
    const source = azureCredentialSource({
      connectionString: Option.isSome(connectionString),
      account: Option.isSome(account),
      accountKey: Option.isSome(accountKey)
    })
    if (source === "none") {
      return yield* new CacheObjectStoreError({
        backend: "object_store",
        operation: "connect",
        detail: "no Azure storage account: set AZURE_STORAGE_ACCOUNT (credentials from the default Azure chain, or AZURE_STORAGE_KEY) or AZURE_STORAGE_CONNECTION_STRING"
      })
    }
    const sdk = yield* Effect.tryPromise({ try: () => import("@azure/storage-blob"), catch: connectFailed })
    const pipelineOptions = { retryOptions: { maxTries: 2, tryTimeoutInMs: 15_000 } }
    const url = `https://${Option.getOrElse(account, () => "")}.blob.core.windows.net`
    const service = yield* source === "default_chain"
      ? Effect.tryPromise({
          try: async () => new sdk.BlobServiceClient(url, new (await import("@azure/identity")).DefaultAzureCredential(), pipelineOptions),
          catch: connectFailed
        })
      : Effect.try({
          try: () =>
            Option.isSome(connectionString)
              ? sdk.BlobServiceClient.fromConnectionString(Redacted.value(connectionString.value), pipelineOptions)
              : new sdk.BlobServiceClient(
                  url,
                  new sdk.StorageSharedKeyCredential(Option.getOrElse(account, () => ""), Option.match(accountKey, { onNone: () => "", onSome: Redacted.value })),
                  pipelineOptions
                ),
          catch: connectFailed
        })
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
