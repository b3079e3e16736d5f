import { Config, Effect, Option } from "effect"
import { CacheObjectStoreError } from "./errors"
import { CONTENT_HASH_METADATA, describe, type ObjectClient, sdkCall, sdkLookup } from "./ObjectClient"

/**
 * Google Cloud Storage through @google-cloud/storage (imported on this path only), default
 * credentials (ADC). `STORAGE_EMULATOR_HOST` (the library's own variable) selects an emulator.
 */
export const makeGcsClient = (bucketName: string) =>
  Effect.gen(function* () {
    const emulator = yield* Config.option(Config.nonEmptyString("STORAGE_EMULATOR_HOST"))
    const sdk = yield* Effect.tryPromise({
      try: () => import("@google-cloud/storage"),
      catch: (e) => new CacheObjectStoreError({ backend: "object_store", operation: "connect", detail: describe(e) })
    })
    const storage = new sdk.Storage({
      ...(Option.isSome(emulator) ? { apiEndpoint: emulator.value } : {}),
      retryOptions: { autoRetry: false, maxRetries: 0 }
    })
    const bucket = storage.bucket(bucketName)
    const isNotFound = (e: unknown) => (e as { code?: unknown }).code === 404

    const objectClient: ObjectClient = {
      head: (name) =>
        sdkLookup("head", () => bucket.file(name).getMetadata(), isNotFound).pipe(
          Effect.map(
            Option.map(([meta]) => ({
              md5Hex: typeof meta.md5Hash === "string" ? Buffer.from(meta.md5Hash, "base64").toString("hex") : undefined,
              contentHash: ((meta.metadata ?? {}) as Record<string, unknown>)[CONTENT_HASH_METADATA] as string | undefined
            }))
          )
        ),
      get: (name) =>
        sdkLookup("get", () => bucket.file(name).download({ validation: false }), isNotFound).pipe(
          Effect.map(Option.map(([bytes]) => bytes.toString("utf8")))
        ),
      put: (name, body, facts) =>
        sdkCall("put", () =>
          bucket.file(name).save(body, {
            resumable: false,
            validation: false,
            contentType: "application/json",
            metadata: { md5Hash: facts.md5Base64, metadata: { [CONTENT_HASH_METADATA]: facts.contentHash } }
          })
        ).pipe(Effect.asVoid)
    }
    return objectClient
  })
