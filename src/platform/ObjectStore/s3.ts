import { Config, Effect, Option } from "effect"
import {
  failWith,
  md5FromEtag,
  type ObjectLocation,
  type ProviderClient,
  sdkCall,
  sdkLookup
} from "./ObjectStore"

/**
 * S3 through @aws-sdk/client-s3 (imported on this path only). Credentials: the SDK's default
 * chain. Endpoint: `AWS_ENDPOINT_URL_S3`, else `AWS_ENDPOINT_URL` (the SDK's own variables);
 * path-style addressing with `AWS_S3_FORCE_PATH_STYLE=true`; region `AWS_REGION`/`AWS_DEFAULT_REGION`.
 */
export const makeS3Provider = (location: ObjectLocation, url: string) =>
  Effect.gen(function* () {
    const fail = failWith(url)
    const bucket = location.bucket
    const endpoint = yield* Config.option(Config.nonEmptyString("AWS_ENDPOINT_URL_S3")).pipe(
      Effect.zipWith(Config.option(Config.nonEmptyString("AWS_ENDPOINT_URL")), (a, b) => Option.orElse(a, () => b))
    )
    const forcePathStyle = yield* Config.boolean("AWS_S3_FORCE_PATH_STYLE").pipe(Config.withDefault(false))
    const region = yield* Config.nonEmptyString("AWS_REGION").pipe(
      Config.orElse(() => Config.nonEmptyString("AWS_DEFAULT_REGION")),
      Config.withDefault("us-east-1")
    )
    // The SDK's own switch: its multi-line Node-version notice would break the CLI's one-line stderr.
    process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true"
    const sdk = yield* Effect.tryPromise({ try: () => import("@aws-sdk/client-s3"), catch: fail("connect") })
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

    const status = (e: unknown) => (e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode
    const isNotFound = (e: unknown) => {
      const name = (e as { name?: string }).name
      return name === "NotFound" || name === "NoSuchKey" || status(e) === 404
    }
    const isPreconditionFailed = (e: unknown) => (e as { name?: string }).name === "PreconditionFailed" || status(e) === 412

    const head: ProviderClient["head"] = (name) =>
      sdkLookup(fail("head", name), () => client.send(new sdk.HeadObjectCommand({ Bucket: bucket, Key: name })), isNotFound).pipe(
        Effect.map(
          Option.map((out) => ({
            etag: out.ETag,
            md5Hex: md5FromEtag(out.ETag),
            size: out.ContentLength,
            metadata: { ...(out.Metadata ?? {}) }
          }))
        )
      )

    const provider: ProviderClient = {
      head,
      get: (name) =>
        sdkLookup(
          fail("get", name),
          async () => {
            const out = await client.send(new sdk.GetObjectCommand({ Bucket: bucket, Key: name }))
            return out.Body === undefined ? new Uint8Array() : await out.Body.transformToByteArray()
          },
          isNotFound
        ),
      put: (name, body, request) =>
        Effect.gen(function* () {
          // S3 enforces If-None-Match on PUT; the HEAD first also covers servers that ignore it, and skips the upload.
          if (request.ifAbsent && Option.isSome(yield* head(name))) return false
          const sent = yield* sdkCall(fail("put", name), () =>
            client
              .send(
                new sdk.PutObjectCommand({
                  Bucket: bucket,
                  Key: name,
                  Body: body,
                  ContentType: request.contentType,
                  ContentMD5: request.md5Base64,
                  Metadata: { ...request.metadata },
                  ...(request.ifAbsent ? { IfNoneMatch: "*" } : {})
                })
              )
              .then(
                () => true,
                (e: unknown) => {
                  if (request.ifAbsent && isPreconditionFailed(e)) return false
                  throw e
                }
              )
          )
          return sent
        }),
      list: (prefix) =>
        Effect.gen(function* () {
          const names: Array<string> = []
          let token: string | undefined = undefined
          do {
            const page = yield* sdkCall(fail("list", prefix), () =>
              client.send(new sdk.ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }))
            )
            for (const o of page.Contents ?? []) if (o.Key !== undefined) names.push(o.Key)
            token = page.IsTruncated === true ? page.NextContinuationToken : undefined
          } while (token !== undefined)
          return names
        })
    }
    return provider
  })
