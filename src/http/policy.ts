import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { UsageError } from "../commands/errors"
import { policyCheck } from "../commands/policyCheck"
import { policyShow } from "../commands/policyShow"
import { PolicyCheckOutput, PolicyShowOutput } from "../schemas/policy-output"
import { ServeApi } from "./api"
import { answer, answerKept, singleParams } from "./respond"

const required = (params: Record<string, string | undefined>, name: string) =>
  params[name] === undefined ? Effect.fail(new UsageError({ detail: `query parameter ${name} is required` })) : Effect.succeed(params[name]!)

/**
 * GET /api/v1/policy: `pcli policy show --output json`; it reads pcli.toml and the store only, so its bytes are kept until either changes.
 * GET /api/v1/policy/check?principal=&capability=&model=: `pcli policy check`.
 */
export const PolicyRoutes = HttpApiBuilder.group(ServeApi, "policy", (handlers) =>
  handlers
    .handle("show", () => answerKept("policy", PolicyShowOutput, policyShow))
    .handle("check", ({ urlParams }) =>
      answer(
        PolicyCheckOutput,
        Effect.gen(function* () {
          const params = yield* singleParams(urlParams)
          return yield* policyCheck({ principal: yield* required(params, "principal"), capability: yield* required(params, "capability"), model: yield* required(params, "model") })
        })
      )
    )
)
