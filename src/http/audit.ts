import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { auditList } from "../commands/audit"
import { auditCustody } from "../commands/auditCustody"
import { auditScorecard } from "../commands/auditScorecard"
import { UsageError } from "../commands/errors"
import { AuditListOutput, AuditScorecardOutput, CustodyOutput, type ScorecardDimension } from "../schemas/audit"
import { ServeApi } from "./api"
import { encodeJsonWithArray, ledgerRowJson } from "../render/json"
import { answer, answerJson, singleParams } from "./respond"

const DIMENSIONS: ReadonlyArray<ScorecardDimension> = ["principal", "rule", "scope"]

const dimension = (by: string | undefined) =>
  by === undefined
    ? Effect.succeed<ScorecardDimension>("principal")
    : DIMENSIONS.includes(by as ScorecardDimension)
      ? Effect.succeed(by as ScorecardDimension)
      : Effect.fail(new UsageError({ detail: `by must be one of ${DIMENSIONS.join(", ")}, got ${JSON.stringify(by)}` }))

/** GET /api/v1/audit, /audit/scorecard, /custody/{subject}: `pcli audit [--product --actor --since | --scorecard | --for]`. */
export const AuditRoutes = HttpApiBuilder.group(ServeApi, "audit", (handlers) =>
  handlers
    .handle("list", ({ urlParams }) =>
      answerJson(
        Effect.gen(function* () {
          const { actor, product, since } = yield* singleParams(urlParams)
          const { entries, ...head } = yield* auditList({ since, actor, product })
          // The CLI's streamed bytes, whole: the rows written by the same hand-written writer.
          return yield* encodeJsonWithArray(AuditListOutput, { ...head, entries: [] }, "entries", ledgerRowJson, entries)
        })
      )
    )
    .handle("scorecard", ({ urlParams }) =>
      answer(
        AuditScorecardOutput,
        Effect.flatMap(singleParams(urlParams), (params) =>
          Effect.flatMap(dimension(params.by), (by) => auditScorecard({ by, window: params.window ?? "all" }))
        )
      )
    )
    .handle("custody", ({ path }) =>
      answer(CustodyOutput, auditCustody({ subject: path.subject }))
    )
)
