import { HttpApiBuilder } from "@effect/platform"
import { policyShow } from "../commands/policyShow"
import { PolicyShowOutput } from "../schemas/policy-output"
import { ServeApi } from "./api"
import { answer } from "./respond"

/** GET /api/v1/policy: `pcli policy show --output json`. */
export const PolicyRoutes = HttpApiBuilder.group(ServeApi, "policy", (handlers) => handlers.handle("show", () => answer(PolicyShowOutput, policyShow)))
