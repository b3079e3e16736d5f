import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { brief } from "../commands/brief"
import { InvalidFlagValue } from "../commands/errors"
import { BriefOutput, type BriefSince } from "../schemas/brief"
import { ServeApi } from "./api"
import { answer, singleParams } from "./respond"

const SINCE: ReadonlyArray<BriefSince> = ["last", "24h", "7d"]

/** GET /api/v1/brief?since= (default 7d): `pcli brief --output json`; the cursor is never advanced here. */
export const BriefRoutes = HttpApiBuilder.group(ServeApi, "brief", (handlers) =>
  handlers.handle("brief", ({ urlParams }) =>
    answer(
      BriefOutput,
      Effect.flatMap(singleParams(urlParams), (params) => {
        const since = params.since ?? "7d"
        return Effect.flatMap(
          SINCE.includes(since as BriefSince)
            ? Effect.succeed(since as BriefSince)
            : Effect.fail(new InvalidFlagValue({ flag: "since", detail: `since must be one of ${SINCE.join(", ")}, got ${JSON.stringify(since)}` })),
          (s) => brief({ since: s })
        )
      })
    )
  )
)
