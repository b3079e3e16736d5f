import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { InvalidFlagValue } from "../commands/errors"
import { historyList, historyRunDetail } from "../commands/history"
import { HistoryListOutput, HistoryRunOutput } from "../schemas/history"
import { ServeApi } from "./api"
import { answer, answerWatched, singleParams } from "./respond"

/** `last` as the CLI's `--last` parses it: digits only, the command checks the range. */
const lastOf = (last: string | undefined) =>
  last === undefined ? Effect.succeed(undefined) : /^[0-9]{1,9}$/.test(last) ? Effect.succeed(Number(last)) : Effect.fail(new InvalidFlagValue({ flag: "last", detail: `last must be a positive integer, got ${JSON.stringify(last)}` }))

/** GET /api/v1/runs?last=&model=, /runs/{id}: `pcli history [--last N] [--model M]` and `pcli history <id>`. */
export const RunRoutes = HttpApiBuilder.group(ServeApi, "runs", (handlers) =>
  handlers
    .handle("list", ({ urlParams }) =>
      Effect.flatMap(Effect.either(singleParams(urlParams)), (params) =>
        params._tag === "Left"
          ? answer(HistoryListOutput, Effect.fail(params.left))
          : answerWatched(`runs?${params.right.last ?? ""}&${params.right.model ?? ""}`, HistoryListOutput, Effect.flatMap(lastOf(params.right.last), (last) => historyList({ last, model: params.right.model })))
      )
    )
    .handle("run", ({ path }) => answer(HistoryRunOutput, historyRunDetail(path.id)))
)
