import { HttpApiBuilder } from "@effect/platform"
import { policyShow } from "../commands/policyShow"
import { PolicyShowOutput } from "../schemas/policy-output"
import { ServeApi } from "./api"
import { answerKept } from "./respond"

/** GET /api/v1/policy: `pcli policy show --output json`; it reads pcli.toml and the store only, so its bytes are kept until either changes. */
export const PolicyRoutes = HttpApiBuilder.group(ServeApi, "policy", (handlers) =>
  handlers.handle("show", () => answerKept("policy", PolicyShowOutput, policyShow))
)
