import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { auditList, auditPage } from "../commands/audit"
import { auditVerify } from "../commands/auditVerify"
import { auditCustody } from "../commands/auditCustody"
import { auditScorecard } from "../commands/auditScorecard"
import { InvalidFlagValue, UsageError } from "../commands/errors"
import * as commandLayer from "../layers/commandLayers"
import { AuditListOutput, AuditScorecardOutput, AuditVerifyOutput, CustodyOutput, type ScorecardDimension } from "../schemas/audit"
import { ServeApi } from "./api"
import { encodeJson, encodeJsonWithArray, ledgerRowJson } from "../render/json"
import { answer, answerJson, singleParams } from "./respond"

const DIMENSIONS: ReadonlyArray<ScorecardDimension> = ["principal", "rule", "scope"]

const dimension = (by: string | undefined) =>
  by === undefined
    ? Effect.succeed<ScorecardDimension>("principal")
    : DIMENSIONS.includes(by as ScorecardDimension)
      ? Effect.succeed(by as ScorecardDimension)
      : Effect.fail(new InvalidFlagValue({ flag: "by", detail: `by must be one of ${DIMENSIONS.join(", ")}, got ${JSON.stringify(by)}` }))

/** GET /api/v1/audit, /audit/scorecard, /custody/{subject}: `pcli audit [--product --actor --since | --scorecard | --for]`. */
export const AuditRoutes = HttpApiBuilder.group(ServeApi, "audit", (handlers) =>
  handlers
    .handle("list", ({ urlParams }) =>
      answerJson(
        Effect.gen(function* () {
          const { actor, product, since, model, effect, limit, cursor } = yield* singleParams(urlParams)
          if (limit !== undefined || cursor !== undefined) {
            if (limit === undefined) return yield* new UsageError({ detail: "cursor requires limit" })
            if (!/^[0-9]{1,9}$/.test(limit)) return yield* new InvalidFlagValue({ flag: "limit", detail: `limit must be 1..1000, got ${JSON.stringify(limit)}` })
            return yield* encodeJson(AuditListOutput, yield* auditPage({ since, actor, product, model, effect, limit: Number(limit), cursor }))
          }
          const { entries, ...head } = yield* auditList({ since, actor, product, model, effect })
          // The CLI's streamed bytes, whole: the rows written by the same hand-written writer.
          return yield* encodeJsonWithArray(AuditListOutput, { ...head, entries: [] }, "entries", ledgerRowJson, entries)
        })
      )
    )
    // The chain's report whatever it says (the CLI's exit 1 for a broken chain is the body's `intact: false` here).
    .handle("verify", () => answer(AuditVerifyOutput, Effect.provide(auditVerify(), commandLayer.witnessRead)))
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
