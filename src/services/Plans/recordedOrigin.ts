// Who issued a plan and when, as the ledger recorded it: the file's `principal` and `created_at` sit outside the
// plan id's hash, so an agent may rewrite them (decision 33); the rows its issuing wrote are chained.
import { Effect, Option } from "effect"
import type { Plan, PlanAuthor } from "../../schemas/plans"
import { Ledger, type LedgerRow, type LedgerUnavailable } from "../Ledger/Ledger"
import { ProjectContext } from "../ProjectConfig/ProjectContext"
import { GOVERNED_AS_AGENT, isIssuingRow, recordedIssuer } from "./ledgerRows"

/** A plan's author and creation time as its first issuing row records them. */
export interface RecordedOrigin {
  readonly principal: PlanAuthor
  readonly created_at: string
  /** Whether an evaluation its issuing recorded resolved `require_review`. */
  readonly reviewAtIssue: boolean
}

// An honest file is written a moment before its rows are appended; a wider gap is a claim the ledger contradicts.
const CLOCK_SLACK_MILLIS = 60_000

/**
 * The author as the row records it. A gc or backfill row's `principal` is the class it is governed as: its reason
 * names the issuer's; in rows from before that, the file's class stands when its id does.
 */
const authorOf = (row: LedgerRow, plan: Plan): PlanAuthor => {
  // Rows written before principal ids existed record none: the file's id is all there is.
  const id = row.principal_id ?? plan.principal.id
  const source = row.principal_id_source ?? plan.principal.source
  const fileIdHolds = plan.principal.id === id && plan.principal.source === source
  if (!GOVERNED_AS_AGENT.has(plan.kind)) return { class: row.principal, id, source }
  return { class: recordedIssuer(row) ?? (fileIdHolds ? plan.principal.class : row.principal), id, source }
}

/**
 * The recorded origin of each plan the ledger holds an issuing row for, read in one query;
 * a plan it holds none for (an ungoverned project records nothing, decisions.md 32) is absent.
 */
export const recordedOrigins = (plans: ReadonlyArray<Plan>): Effect.Effect<ReadonlyMap<string, RecordedOrigin>, LedgerUnavailable, Ledger> =>
  Effect.gen(function* () {
    if (plans.length === 0) return new Map()
    const byId = new Map(plans.map((p) => [p.plan_id, p]))
    const rows = yield* (yield* Ledger).list({ kinds: ["evaluation"], planIds: [...byId.keys()] })
    const origins = new Map<string, RecordedOrigin>()
    // Oldest first: the first issuing row of each plan is where it was made.
    for (const row of rows) {
      const plan = row.plan_id === null ? undefined : byId.get(row.plan_id)
      if (plan === undefined || !isIssuingRow(row, plan.kind)) continue
      const first = origins.get(plan.plan_id)
      const review = row.effect === "require_review"
      if (first === undefined) origins.set(plan.plan_id, { principal: authorOf(row, plan), created_at: row.timestamp, reviewAtIssue: review })
      else if (review && !first.reviewAtIssue) origins.set(plan.plan_id, { ...first, reviewAtIssue: true })
    }
    return origins
  })

/** Whether the file claims another author, or a creation time off the recorded one by more than a clock's slack. */
export const fileDisagrees = (plan: Plan, origin: RecordedOrigin): boolean =>
  plan.principal.class !== origin.principal.class ||
  plan.principal.id !== origin.principal.id ||
  plan.principal.source !== origin.principal.source ||
  !(Math.abs(Date.parse(plan.created_at) - Date.parse(origin.created_at)) <= CLOCK_SLACK_MILLIS)

/** The plan with its recorded author and creation time in place of the file's. */
export const withOrigin = (plan: Plan, origin: RecordedOrigin | undefined): Plan =>
  origin === undefined ? plan : { ...plan, principal: origin.principal, created_at: origin.created_at }

/** Whether every plan's issuing is recorded here: under `[policy]` (without one nothing is, decisions.md item 32). */
export const issuingRecorded: Effect.Effect<boolean, never, ProjectContext> = Effect.map(ProjectContext, (project) =>
  Option.exists(project.config, (config) => config.settings.policy !== undefined)
)

/**
 * A note for each plan whose file claims another author or age than its ledger record, and, where every issuing
 * is recorded, for each the ledger holds no record of (a file pcli never wrote, or one from before `[policy]`).
 */
export const originNotes = (plans: ReadonlyArray<Plan>, origins: ReadonlyMap<string, RecordedOrigin>, recorded: boolean): ReadonlyArray<string> =>
  plans.flatMap((plan) => {
    const origin = origins.get(plan.plan_id)
    if (origin === undefined) return recorded ? [`${plan.plan_id}: the ledger holds no record of its issuing: its author and created_at are the file's claims`] : []
    return fileDisagrees(plan, origin) ? [`${plan.plan_id}: the plan file's author or created_at differ from its ledger record, which is shown`] : []
  })
