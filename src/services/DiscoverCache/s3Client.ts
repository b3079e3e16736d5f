import { Config, Effect, Option } from "effect"
import { CacheObjectStoreError } from "./errors"
import { CONTENT_HASH_METADATA, describe, type ObjectClient, sdkCall, sdkLookup } from "./ObjectClient"

/**
 * S3 through @aws-sdk/client-s3 (imported on this path only). Credentials: the SDK's default
 * chain. Endpoint: `AWS_ENDPOINT_URL_S3`, else `AWS_ENDPOINT_URL` (the SDK's own variables);
 * path-style addressing with `AWS_S3_FORCE_PATH_STYLE=true`; region `AWS_REGION`/`AWS_DEFAULT_REGION`.
 */
export const makeS3Client = (bucket: string) =>
  Effect.gen(function* () {
    const endpoint = yield* Config.option(Config.nonEmptyString("AWS_ENDPOINT_URL_S3")).pipe(
      Effect.zipWith(Config.option(Config.nonEmptyString("AWS_ENDPOINT_URL")), (a, b) => Option.orElse(a, () => b))
    )
    const forcePathStyle = yield* Config.boolean("AWS_S3_FORCE_PATH_STYLE").pipe(Config.withDefault(false))
    const region = yield* Config.nonEmptyString("AWS_REGION").pipe(
      Config.orElse(() => Config.nonEmptyString("AWS_DEFAULT_REGION")),
      Config.withDefault("us-east-1")
    )
    const sdk = yield* Effect.tryPromise({
      try: () => import("@aws-sdk/client-s3"),
      catch: (e) => new CacheObjectStoreError({ backend: "object_store", operation: "connect", detail: describe(e) })
    })
    const client = new sdk.S3Client({
      region,
      forcePathStyle,
      ...(Option.isSome(endpoint) ? { endpoint: endpoint.value } : {}),
      maxAttempts: 2,
      requestChecksumCalculation: "WHEN_REQUIRED",
      responseChecksumValidation: "WHEN_REQUIRED",
      requestHandler: { connectionTimeout: 3_000, requestTimeout: 15_000 }
    })
    yield* Effect.addFinalizer(() => Effect.sync(() => client.destroy()))

    const isNotFound = (e: unknown) => {
      const err = e as { name?: string; $metadata?: { httpStatusCode?: number } }
      return err.name === "NotFound" || err.name === "NoSuchKey" || err.$metadata?.httpStatusCode === 404
    }

    const objectClient: ObjectClient = {
      head: (name) =>
        sdkLookup("head", () => client.send(new sdk.HeadObjectCommand({ Bucket: bucket, Key: name })), isNotFound).pipe(
          Effect.map(Option.map((out) => ({ etag: out.ETag, contentHash: out.Metadata?.[CONTENT_HASH_METADATA] })))
        ),
      get: (name) =>
        sdkLookup(
          "get",
          async () => {
            const out = await client.send(new sdk.GetObjectCommand({ Bucket: bucket, Key: name }))
            return out.Body === undefined ? "" : await out.Body.transformToString("utf-8")
          },
          isNotFound
        ),
      put: (name, body, facts) =>
        sdkCall("put", () =>
          client.send(
            new sdk.PutObjectCommand({
              Bucket: bucket,
              Key: name,
              Body: body,
              ContentType: "application/json",
              ContentMD5: facts.md5Base64,
              Metadata: { [CONTENT_HASH_METADATA]: facts.contentHash }
            })
          )
        ).pipe(Effect.asVoid)
    }
    return objectClient
  })
