import { HttpApiBuilder } from "@effect/platform"
import { ServeApi } from "./api"
import { notBuilt } from "./respond"

/** GET /api/v1/brief?since=: `pcli brief --output json`, once that command exists. */
export const BriefRoutes = HttpApiBuilder.group(ServeApi, "brief", (handlers) => handlers.handle("brief", () => notBuilt("GET /api/v1/brief (pcli brief)")))
