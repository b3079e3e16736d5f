// Loaded only when `pcli audit` runs.
import { Effect, Option, Stream } from "effect"
import { auditListStream, auditPage } from "../commands/audit"
import { auditScorecard } from "../commands/auditScorecard"
import { UsageError } from "../commands/errors"
import * as commandLayer from "../layers/commandLayers"
import { ReportedFailure } from "../render/errors"
import { auditListText, auditListTextStream, auditVerifyText, custodyText, scorecardText } from "../render/text/audit"
import { encodeJsonStreamingArray, ledgerRowJson } from "../render/json"
import { AuditListOutput, AuditScorecardOutput, AuditVerifyOutput, CustodyOutput } from "../schemas/audit"
import { type CommonOptions, globalOptions } from "./options"
import { emit, writeStdout } from "./output"

export interface AuditOptions extends CommonOptions {
  readonly verify: boolean
  readonly expectHead: Option.Option<string>
  readonly subject: Option.Option<string>
  readonly scorecard: boolean
  readonly by: Option.Option<"principal" | "rule" | "scope">
  readonly window: Option.Option<string>
  readonly product: Option.Option<string>
  readonly actor: Option.Option<string>
  readonly since: Option.Option<string>
  readonly model: Option.Option<string>
  readonly effect: Option.Option<"allow" | "require_review" | "deny">
  readonly limit: Option.Option<number>
  readonly cursor: Option.Option<string>
}

// Loaded by `--for` alone: the custody chain reads plans and compiles, which the other forms never do.
const custodyCommand = Effect.promise(() => import("../commands/auditCustody"))
// Loaded by `--verify` alone: the witnesses' modules (the warehouse record, DuckDB's) are not evaluated by the list.
const verifyCommand = Effect.promise(() => import("../commands/auditVerify"))

type Form =
  | { readonly form: "verify" }
  | { readonly form: "custody"; readonly subject: string }
  | { readonly form: "scorecard"; readonly by: "principal" | "rule" | "scope"; readonly window: string }
  | { readonly form: "list" }

/** The interface's conflicts (`--product`/`--actor`/`--since` with `--for`/`--scorecard`; `--by`/`--window` without `--scorecard`) are usage errors. */
const auditForm = (opts: AuditOptions): Effect.Effect<Form, UsageError> => {
  const usage = (detail: string) => Effect.fail(new UsageError({ detail }))
  const listFlags = [["--product", opts.product], ["--actor", opts.actor], ["--since", opts.since], ["--model", opts.model], ["--effect", opts.effect], ["--limit", opts.limit], ["--cursor", opts.cursor]] as ReadonlyArray<readonly [string, Option.Option<unknown>]>
  const setList = listFlags.filter(([, v]) => Option.isSome(v)).map(([f]) => f)
  if (opts.verify) {
    const others = [...setList, ...(Option.isSome(opts.subject) ? ["--for"] : []), ...(opts.scorecard ? ["--scorecard"] : [])]
    if (others.length > 0) return usage(`--verify conflicts with ${others[0]}`)
  }
  if (Option.isSome(opts.subject) && opts.scorecard) return usage("--for conflicts with --scorecard")
  const mode = Option.isSome(opts.subject) ? "--for" : opts.scorecard ? "--scorecard" : undefined
  if (mode !== undefined && setList.length > 0) return usage(`${setList[0]} conflicts with ${mode}`)
  if (!opts.scorecard && Option.isSome(opts.by)) return usage("--by requires --scorecard")
  if (!opts.scorecard && Option.isSome(opts.window)) return usage("--window requires --scorecard")
  if (!opts.verify && Option.isSome(opts.expectHead)) return usage("--expect-head requires --verify")
  if (Option.isSome(opts.cursor) && Option.isNone(opts.limit)) return usage("--cursor requires --limit")
  if (opts.verify) return Effect.succeed({ form: "verify" })
  if (Option.isSome(opts.subject)) return Effect.succeed({ form: "custody", subject: opts.subject.value })
  if (opts.scorecard) return Effect.succeed({ form: "scorecard", by: Option.getOrElse(opts.by, () => "principal" as const), window: Option.getOrElse(opts.window, () => "all") })
  return Effect.succeed({ form: "list" })
}

/** Exit 1 with the failure's code: a chain that does not recompute first, then a witnessed head not in it, then another store's record. */
const verifyVerdict = (out: AuditVerifyOutput) => {
  const witnessed = (status: string) => out.witnesses?.find((w) => w.status === status)
  const truncated = witnessed("not_in_chain")
  const other = witnessed("other_store")
  if (!out.intact && truncated !== undefined && out.first_bad?.seq === truncated.seq && out.first_bad.decision_ref === null && out.first_bad.expected_hash === truncated.hash) {
    return Effect.fail(new ReportedFailure({ code: "ledger-truncated", detail: `ledger truncated: the head witnessed at seq ${truncated.seq} (${truncated.source}) is not in the chain` }))
  }
  if (!out.intact) return Effect.fail(new ReportedFailure({ code: "ledger-chain-broken", detail: `ledger chain broken at seq ${out.first_bad?.seq}` }))
  if (other !== undefined) {
    return Effect.fail(new ReportedFailure({ code: "governance-mismatch", detail: "the warehouse is governed by another state store: its witnessed head cannot be checked against this ledger" }))
  }
  return Effect.void
}

export const runAudit = (opts: AuditOptions) =>
  Effect.gen(function* () {
    const form = yield* auditForm(opts)
    const body = Effect.gen(function* () {
      switch (form.form) {
        case "verify": {
          const out = yield* Effect.flatMap(verifyCommand, (m) => m.auditVerify({ expectHead: Option.getOrUndefined(opts.expectHead) }))
          yield* emit(opts.output, AuditVerifyOutput, out, auditVerifyText)
          return yield* verifyVerdict(out)
        }
        case "list": {
          const filters = {
            since: Option.getOrUndefined(opts.since),
            actor: Option.getOrUndefined(opts.actor),
            product: Option.getOrUndefined(opts.product),
            model: Option.getOrUndefined(opts.model),
            effect: Option.getOrUndefined(opts.effect)
          }
          if (Option.isSome(opts.limit)) {
            const page = yield* auditPage({ ...filters, limit: opts.limit.value, cursor: Option.getOrUndefined(opts.cursor) })
            return yield* emit(opts.output, AuditListOutput, page, (o) => [auditListText(o), ...(o.next_cursor ? [`next page: --cursor ${o.next_cursor}`] : [])].join("\n"))
          }
          const { entries, head } = yield* auditListStream(filters)
          // Streamed to stdout as rows arrive: memory stays flat however many rows match.
          const chunks = opts.output === "json" ? encodeJsonStreamingArray(AuditListOutput, head, "entries", ledgerRowJson, entries) : auditListTextStream(head, entries)
          return yield* Stream.runForEach(chunks, writeStdout)
        }
        case "scorecard":
          return yield* emit(opts.output, AuditScorecardOutput, yield* auditScorecard({ by: form.by, window: form.window }), scorecardText)
        case "custody":
          return
      }
    })
    // Only --verify reads the warehouse (its witness): the other forms never load DuckDB.
    if (form.form === "verify") return yield* body.pipe(Effect.provide(commandLayer.auditVerify(globalOptions(opts), undefined)))
    if (form.form !== "custody") return yield* body.pipe(Effect.provide(commandLayer.audit(globalOptions(opts))))
    const custody = Effect.flatMap(
      Effect.flatMap(custodyCommand, (m) => m.auditCustody({ subject: form.subject })),
      (out) => emit(opts.output, CustodyOutput, out, custodyText)
    )
    yield* custody.pipe(Effect.provide(commandLayer.auditCustody(globalOptions(opts))))
  })
