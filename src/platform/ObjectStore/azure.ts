import { Config, Effect, Option, Redacted } from "effect"
import { failWith, type ObjectLocation, type ProviderClient, sdkCall, sdkLookup } from "./ObjectStore"

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

// Azure metadata names must be C# identifiers: `-` is stored as `_` and read back as `-`.
const toAzureName = (name: string) => name.replace(/-/g, "_")
const fromAzureName = (name: string) => name.replace(/_/g, "-")

/** Azure Blob through @azure/storage-blob (and @azure/identity for the default chain), imported on this path only. */
export const makeAzureProvider = (location: ObjectLocation, url: string) =>
  Effect.gen(function* () {
    const fail = failWith(url)
    const connectFailed = fail("connect")
    const connectionString = yield* Config.option(Config.redacted("AZURE_STORAGE_CONNECTION_STRING"))
    const account = yield* Config.option(Config.nonEmptyString("AZURE_STORAGE_ACCOUNT"))
    const accountKey = yield* Config.option(Config.redacted("AZURE_STORAGE_KEY"))
    const source = azureCredentialSource({
      connectionString: Option.isSome(connectionString),
      account: Option.isSome(account),
      accountKey: Option.isSome(accountKey)
    })
    if (source === "none") {
      return yield* Effect.fail(
        connectFailed(
          "no Azure storage account: set AZURE_STORAGE_ACCOUNT (credentials from the default Azure chain, or AZURE_STORAGE_KEY) or AZURE_STORAGE_CONNECTION_STRING"
        )
      )
    }
    const sdk = yield* Effect.tryPromise({ try: () => import("@azure/storage-blob"), catch: connectFailed })
    const pipelineOptions = { retryOptions: { maxTries: 2, tryTimeoutInMs: 15_000 } }
    const serviceUrl = `https://${Option.getOrElse(account, () => "")}.blob.core.windows.net`
    const service = yield* source === "default_chain"
      ? Effect.tryPromise({
          try: async () => new sdk.BlobServiceClient(serviceUrl, new (await import("@azure/identity")).DefaultAzureCredential(), pipelineOptions),
          catch: connectFailed
        })
      : Effect.try({
          try: () =>
            Option.isSome(connectionString)
              ? sdk.BlobServiceClient.fromConnectionString(Redacted.value(connectionString.value), pipelineOptions)
              : new sdk.BlobServiceClient(
                  serviceUrl,
                  new sdk.StorageSharedKeyCredential(Option.getOrElse(account, () => ""), Option.match(accountKey, { onNone: () => "", onSome: Redacted.value })),
                  pipelineOptions
                ),
          catch: connectFailed
        })
    const container = service.getContainerClient(location.bucket)
    const status = (e: unknown) => (e as { statusCode?: unknown }).statusCode
    const isNotFound = (e: unknown) => status(e) === 404

    const provider: ProviderClient = {
      head: (name) =>
        sdkLookup(fail("head", name), () => container.getBlockBlobClient(name).getProperties(), isNotFound).pipe(
          Effect.map(
            Option.map((p) => ({
              etag: p.etag,
              md5Hex: p.contentMD5 === undefined ? undefined : Buffer.from(p.contentMD5).toString("hex"),
              size: p.contentLength,
              metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [fromAzureName(k), v]))
            }))
          )
        ),
      get: (name) =>
        sdkLookup(fail("get", name), () => container.getBlockBlobClient(name).downloadToBuffer(), isNotFound).pipe(
          Effect.map(Option.map((bytes) => new Uint8Array(bytes)))
        ),
      put: (name, body, request) =>
        sdkCall(fail("put", name), () =>
          container
            .getBlockBlobClient(name)
            .upload(Buffer.from(body), body.byteLength, {
              blobHTTPHeaders: { blobContentType: request.contentType, blobContentMD5: Buffer.from(request.md5Base64, "base64") },
              metadata: Object.fromEntries(Object.entries(request.metadata).map(([k, v]) => [toAzureName(k), v])),
              // If-None-Match: * makes Put Blob create-only (409 BlobAlreadyExists otherwise).
              ...(request.ifAbsent ? { conditions: { ifNoneMatch: "*" } } : {})
            })
            .then(
              () => true,
              (e: unknown) => {
                if (request.ifAbsent && (status(e) === 409 || status(e) === 412)) return false
                throw e
              }
            )
        ),
      list: (prefix) =>
        sdkCall(fail("list", prefix), async () => {
          const names: Array<string> = []
          for await (const blob of container.listBlobsFlat({ prefix })) names.push(blob.name)
          return names
        })
    }
    return provider
  })
