import { Config, Effect, Option } from "effect"
import { failWith, type ObjectLocation, type ProviderClient, sdkCall, sdkLookup } from "./ObjectStore"

/**
 * Google Cloud Storage through @google-cloud/storage (imported on this path only), default
 * credentials (ADC). `STORAGE_EMULATOR_HOST` (the library's own variable) selects an emulator.
 */
export const makeGcsProvider = (location: ObjectLocation, url: string) =>
  Effect.gen(function* () {
    const fail = failWith(url)
    const emulator = yield* Config.option(Config.nonEmptyString("STORAGE_EMULATOR_HOST"))
    const sdk = yield* Effect.tryPromise({ try: () => import("@google-cloud/storage"), catch: fail("connect") })
    const storage = new sdk.Storage({
      ...(Option.isSome(emulator) ? { apiEndpoint: emulator.value } : {}),
      retryOptions: { autoRetry: false, maxRetries: 0 }
    })
    const bucket = storage.bucket(location.bucket)
    const code = (e: unknown) => (e as { code?: unknown }).code
    const isNotFound = (e: unknown) => code(e) === 404

    const provider: ProviderClient = {
      head: (name) =>
        sdkLookup(fail("head", name), () => bucket.file(name).getMetadata(), isNotFound).pipe(
          Effect.map(
            Option.map(([meta]) => ({
              etag: meta.etag,
              md5Hex: typeof meta.md5Hash === "string" ? Buffer.from(meta.md5Hash, "base64").toString("hex") : undefined,
              size: meta.size === undefined ? undefined : Number(meta.size),
              metadata: Object.fromEntries(
                Object.entries((meta.metadata ?? {}) as Record<string, unknown>).filter((e): e is [string, string] => typeof e[1] === "string")
              )
            }))
          )
        ),
      get: (name) =>
        sdkLookup(fail("get", name), () => bucket.file(name).download({ validation: false }), isNotFound).pipe(
          Effect.map(Option.map(([bytes]) => new Uint8Array(bytes)))
        ),
      put: (name, body, request) =>
        sdkCall(fail("put", name), () =>
          bucket
            .file(name)
            .save(Buffer.from(body), {
              resumable: false,
              validation: false,
              contentType: request.contentType,
              metadata: { md5Hash: request.md5Base64, metadata: { ...request.metadata } },
              // Generation 0 means "no live object": GCS creates or answers 412, atomically.
              ...(request.ifAbsent ? { preconditionOpts: { ifGenerationMatch: 0 } } : {})
            })
            .then(
              () => true,
              (e: unknown) => {
                if (request.ifAbsent && code(e) === 412) return false
                throw e
              }
            )
        ),
      list: (prefix) =>
        sdkCall(fail("list", prefix), () => bucket.getFiles({ prefix, autoPaginate: true })).pipe(
          Effect.map(([files]) => files.map((f) => f.name))
        )
    }
    return provider
  })
