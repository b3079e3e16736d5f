import { HttpClient, HttpClientRequest, HttpClientResponse } from "@effect/platform"
import { Effect, Redacted, Schema } from "effect"
import { TokenResponse } from "../../schemas/warehouse-api"
import { TokenExchangeFailed } from "./errors"
import { describeTransportError } from "./transport"

/** OAuth error codes are short identifiers; anything else in the body is not echoed. */
const OAuthErrorBody = Schema.Struct({ error: Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9_.-]{1,64}$/)) })

const describeFailureBody = (response: HttpClientResponse.HttpClientResponse) =>
  HttpClientResponse.schemaBodyJson(OAuthErrorBody)(response).pipe(
    Effect.map((body) => ` (${body.error})`),
    Effect.orElseSucceed(() => "")
  )

/** `POST https://<host>/oidc/v1/token` with the client credentials in the form body. */
export const exchangeClientCredentials = (
  http: HttpClient.HttpClient,
  host: string,
  clientId: string,
  clientSecret: Redacted.Redacted<string>
): Effect.Effect<TokenResponse, TokenExchangeFailed> => {
  const fail = (reason: string, transient: boolean) => new TokenExchangeFailed({ host, reason, transient })
  const request = HttpClientRequest.post(`https://${host}/oidc/v1/token`).pipe(
    HttpClientRequest.acceptJson,
    HttpClientRequest.bodyUrlParams({
      grant_type: "client_credentials",
      client_id: clientId,
      client_secret: Redacted.value(clientSecret),
      scope: "all-apis"
    })
  )
  return http.execute(request).pipe(
    Effect.mapError((error) => {
      const { detail, transient } = describeTransportError(error)
      return fail(detail, transient)
    }),
    Effect.flatMap((response) =>
      response.status >= 200 && response.status < 300
        ? HttpClientResponse.schemaBodyJson(TokenResponse)(response).pipe(
            Effect.mapError(() => fail("the response lacks access_token, token_type or expires_in", false))
          )
        : describeFailureBody(response).pipe(
            Effect.flatMap((detail) =>
              Effect.fail(fail(`HTTP ${response.status}${detail}`, response.status === 429 || response.status >= 500))
            )
          )
    ),
    Effect.scoped,
    Effect.timeoutFail({ duration: "30 seconds", onTimeout: () => fail("timed out after 30s", true) }),
    Effect.withSpan("warehouse.token_exchange", { attributes: { "pcli.host": host } }),
    Effect.tapError((error) =>
      Effect.logDebug("warehouse token request failed").pipe(Effect.annotateLogs({ host, reason: error.reason }))
    )
  )
}
