import { Cause, Data, Option } from "effect"
import type { ErrorBody } from "./json"

/** How one error tag reaches a user: exit code (decisions.md item 2), HTTP status, remediation hint. */
export interface ErrorRow {
  /** 130: stopped by Ctrl-C, as a shell reports a SIGINT. */
  readonly exit: 0 | 1 | 2 | 130
  readonly status: number
  readonly hint?: string
}

const row = (status: number, hint?: string, exit: 0 | 1 | 2 = 1): ErrorRow => (hint === undefined ? { exit, status } : { exit, status, hint })
const usage = (hint?: string) => row(400, hint, 2)
const invalid = (hint?: string) => row(400, hint)
const notFound = (hint?: string) => row(404, hint)
const conflict = (hint?: string) => row(409, hint)
const unavailable = (hint?: string) => row(503, hint)
const failed = (hint?: string) => row(500, hint)

/**
 * Every error tag pcli can surface. The stable code lives on the error class (services record it:
 * run store, ledger reasons); this table decides everything else. A test checks that every
 * tagged error declared under src/ has a row here.
 */
export const errorTable: Readonly<Record<string, ErrorRow>> = {
  // command line and flag values
  UsageError: usage("run the command with --help for its flags"),
  InvalidFlagValue: invalid("run the command with --help for the values its flags take"),
  InvalidPartitionWindow: invalid("give --from and --to as partition keys with from <= to"),
  WindowNeedsPartitionedModel: usage("select a time_interval model with --model, or drop --from/--to"),
  InvalidPrincipal: invalid("use human or agent"),
  InvalidPrincipalClass: invalid("set PCLI_PRINCIPAL to human or agent, or unset it"),
  InvalidPrincipalId: invalid("ids match [a-z0-9._-]{1,63}"),
  PrincipalIdReserved: invalid("choose another id: unnamed, unrecorded and mcp-* are set by pcli itself"),
  // decisions.md 36: on a PostgreSQL store the connection's role is the principal
  PrincipalMismatch: row(403, "on team state the database role is the principal: unset PCLI_PRINCIPAL/--principal-id, or connect as the right role"),
  PrincipalRoleMissing: row(403, "a DBA grants one group: GRANT pcli_agent TO <role> (or pcli_human)"),
  PrincipalRoleAmbiguous: row(403, "a DBA revokes one group: REVOKE pcli_human FROM <role> (or pcli_agent)"),
  DatabaseRoleUnreadable: unavailable(),
  InitPrintNeedsPostgres: invalid("set [state] url or PCLI_STATE_URL to a postgres:// URL"),
  MigrateTargetNotEmpty: conflict("migrate into a new schema (--state-namespace) or an empty store"),
  MigrateChainBroken: failed("pcli audit --verify on the SQLite store shows where"),
  MigrateFailed: failed(),
  InvalidSince: invalid("YYYY-MM-DD, 2026-01-02T03:04:05+02:00, 7d or 24h"),
  InvalidCapability: invalid(),
  InvalidSelector: invalid("scopes: any | layer=<n> | model=<glob> | classification=<v> | tag=<k>[=<v>]"),
  SelectorTooLong: invalid("a scope selector is at most 1,024 characters"),
  InvalidNamespace: invalid(),
  InvalidStateUrl: invalid(),
  // project files
  ConfigNotFound: notFound("run in a directory with pcli.toml, or pass --config <file>"),
  ConfigUnreadable: invalid(),
  MissingEnvVar: invalid("export the variable, or remove the reference"),
  TomlSyntax: invalid(),
  UnknownKey: invalid(),
  InvalidValue: invalid(),
  ModelsUnreadable: invalid(),
  ModelFileMismatch: invalid(),
  ModelOutsideProject: invalid("replace the link with the file itself, or link only within the models directory"),
  DuplicateModel: invalid(),
  DuplicateTarget: invalid("give each model its own schema.table"),
  ModelSqlInvalid: invalid(),
  UnknownReference: invalid(),
  AmbiguousReference: invalid(),
  DependencyCycle: invalid(),
  InvalidStrategy: invalid(),
  ModelNotFound: notFound("pcli compile lists the models"),
  InvalidModelSelector: invalid("see pcli ls --help for the --select grammar"),
  SelectedModelNotFound: notFound("pcli ls lists the models"),
  InvalidDepth: invalid("give --depth a positive integer"),
  SelectionEmpty: invalid("widen the selector; pcli ls --select shows what it picks"),
  ColumnNotFound: notFound("pcli lineage <model> lists its columns"),
  ModelsNotFound: notFound("pcli compile lists the models"),
  RunNotFound: notFound("pcli history lists the runs"),
  ModelAttributesUnavailable: failed(),
  PlaygroundNotEmpty: conflict("choose an empty or new directory"),
  PlaygroundWriteFailed: failed(),
  // state store and ledger
  StateStoreNewer: conflict("upgrade pcli to read this store"),
  StateStoreOlder: conflict("pcli serve never migrates: a SQLite store is brought forward by running pcli state info once"),
  StateStoreCorrupt: failed(),
  StateStoreIo: failed(),
  StateStoreUnreachable: unavailable("check that the PostgreSQL server of [state] url / PCLI_STATE_URL is running and reachable"),
  StateStoreDenied: invalid("check the user and password of [state] url / PCLI_STATE_URL"),
  LedgerUnavailable: unavailable(),
  RunStoreFailed: failed(),
  DigestReadFailed: failed(),
  // policy
  PolicyConfigMissing: notFound("add a pcli.toml with a [policy] block"),
  PolicyNotConfigured: notFound("add a [policy] block to pcli.toml"),
  PolicyNoScenarios: notFound("add [[policy.tests]] entries"),
  PolicyScenariosFailed: failed(),
  ScenarioLayerInconsistent: invalid(),
  NoMatchingFreeze: notFound("pcli policy show lists the freezes in force"),
  FreezeSourceUnreadable: unavailable(),
  MarkerStoreUnreadable: unavailable(),
  MarkerWriteFailed: unavailable(),
  UnfreezeNeedsHuman: row(403, "only a human may unfreeze: run it with PCLI_PRINCIPAL=human (the refusal is in the ledger)"),
  // warehouse
  AmbiguousWarehouse: invalid(),
  UnknownTarget: invalid(),
  NoWarehouseCredentials: invalid("set token, or client_id and client_secret (WAREHOUSE_TOKEN / WAREHOUSE_CLIENT_ID + WAREHOUSE_CLIENT_SECRET)"),
  TokenExchangeFailed: unavailable(),
  Unauthorized: row(401),
  WarehouseApiError: failed(),
  WarehouseUnreachable: unavailable(),
  WarehouseResponseInvalid: failed(),
  StatementExecutionFailed: failed(),
  StatementFailed: failed(),
  StatementTimedOut: unavailable(),
  WarehouseLocked: unavailable("another process has the warehouse file open (another pcli run?): wait for it, then retry"),
  ContentAddressedNeedsEmbedded: invalid(),
  ArtifactWriteFailed: failed(),
  DataTestFailed: failed(),
  DataTestColumnMissing: invalid("name a column the model outputs (pcli lineage <model> lists them)"),
  FusedStatementFailed: failed(),
  ContractViolation: failed(),
  // discover and its cache
  NoEltAdapter: invalid(),
  AmbiguousAdapter: invalid(),
  NoHealthyConnectors: failed(),
  EmitStateFailed: failed(),
  EltApiRefused: failed(),
  EltBadResponse: failed(),
  EltHttpStatus: failed(),
  EltRateLimited: unavailable(),
  EltTimeout: unavailable(),
  EltUnreachable: unavailable(),
  Throttled: unavailable(),
  CacheConfigInvalid: invalid(),
  CacheEntryCorrupt: failed(),
  CacheEntryTooLarge: failed(),
  CacheIoError: failed(),
  CacheKvError: failed(),
  CacheObjectStoreError: failed(),
  // the object tier (platform/ObjectStore)
  ObjectStoreError: unavailable(),
  ObjectStoreUrlInvalid: invalid("use s3://bucket/prefix/, gs://bucket/prefix/, az://container/prefix/ or file:///absolute/dir/"),
  // environments: branch, promote, rollback (decision 37)
  BranchExists: conflict("pcli branch list shows the branches; drop it first or choose another name"),
  UnknownBranch: notFound("pcli branch list shows the branches"),
  InvalidBranchName: invalid("a branch name is a lower-case identifier: [a-z_][a-z0-9_]{0,39}"),
  ProductionNotDroppable: invalid(),
  BranchNeverRun: conflict("pcli run --branch <name> builds it"),
  BranchMoved: conflict("pcli plan --promote <name> plans it again"),
  StateHashMismatch: conflict("pcli plan --promote <name>, then review --approve the new plan"),
  NothingToRollBack: conflict("pcli history shows what ran; a rollback undoes an applied promote"),
  // plans, review and apply
  PlanNotFound: notFound("pcli review --queue lists pending plans; plans live in .pcli/plans/"),
  PlanIntegrity: conflict("the plan file was edited: write a new plan with pcli plan"),
  PlanStale: conflict("models changed since planning: write a new plan with pcli plan"),
  NothingToPlan: invalid("edit a model first, or name a --base to diff against"),
  PlanStoreIo: failed(),
  BaseRefNotFound: invalid("git rev-parse <ref> must name a commit"),
  GitFailed: failed(),
  FreshnessRecordFailed: failed(),
  AppliedStateIo: failed(),
  MarkerMissing: row(403, "a human approves with pcli review <plan-id> --approve"),
  MarkerUnparseable: row(403, "approve the plan again with pcli review <plan-id> --approve"),
  MarkerPlanMismatch: row(403, "the marker names another plan: approve this one with pcli review <plan-id> --approve"),
  MarkerNotAFile: row(403, "remove it and approve again with pcli review <plan-id> --approve"),
  MarkerUnreadable: row(403),
  MarkerUnrecorded: row(403, "a human approves with pcli review <plan-id> --approve (that writes the approval row the marker names)"),
  PlanAlreadyApplied: conflict("a plan applies once: write a new plan with pcli plan"),
  FreezeChangedDuringApply: conflict("run the apply again: its gate will read the new freeze"),
  ApprovalTaken: conflict("another approval landed first: check it with pcli review <id> --status"),
  ReviewMarkerWriteFailed: failed(),
  ApprovalNeedsHuman: row(403, "a human (PCLI_PRINCIPAL=human) approves plans"),
  PolicyDenied: row(403, "no marker satisfies a deny: change the policy or the plan"),
  PlanKindNotExecutable: row(501),
  // agent authoring (MCP propose, draft_model)
  ProposalDenied: row(403, "no review satisfies a deny: change the model so the policy allows it, or ask a human to change the policy"),
  ProposalNeedsReview: row(403, "a human approves with pcli review <plan-id> --approve, then applies with pcli apply <plan-id>"),
  DraftWriteFailed: failed(),
  DraftNotAllowed: row(403, "policy check --principal agent --capability propose --model <name> explains the effect"),
  GovernanceMismatch: row(403, "a human runs it (and re-pins the warehouse), or use the state store, namespace and pcli.toml that govern this warehouse"),
  InvalidExpectHead: invalid("SEQ:HASH as audit --verify prints them, e.g. 12:<64 hex>"),
  RunNeedsPlan: row(403, "pcli plan, then pcli review <id> --approve (a human), then pcli apply <id>"),
  // reclamation and recovery
  BackfillNothingToDo: invalid("name models with --model, or use --from-last-run"),
  BackfillNoFailedRun: notFound("run the pipeline first, or name models with --model"),
  PhysicalDeleteUnsupported: invalid("remove physical_delete from [gc] in pcli.toml"),
  RestoreTargetAmbiguous: conflict("name one candidate by model@<recipe-prefix> or a longer hash prefix"),
  RestoreAlreadyRestored: conflict(),
  RestoreTargetLive: conflict("only evicted artifacts can be restored"),
  RestoreTargetUnknown: notFound("pcli gc --derivable --dry-run lists live artifacts"),
  RestoreTableDropped: conflict("run an environment that holds the model's code (pcli run, or pcli run --branch <name>)"),
  // gc's own refusal of one table at apply: it rolls that table's transaction back and is reported, never surfaced
  TableKept: conflict(),
  // data products
  SpecRejected: invalid(),
  SpecFileMissing: notFound(),
  ProductNameMismatch: invalid("product.name must equal the file name"),
  InvalidProductName: invalid(),
  ProductNotFound: notFound("pcli product list shows the known products"),
  ManifestUnreadable: failed(),
  CommitIo: failed(),
  CommitSymlinkedTarget: failed(),
  CommitUnexpectedBackup: conflict(),
  StagingJournalRefused: conflict(),
  VerifyNotPassed: row(422, "pcli product verify <name> says what is missing"),
  ModelCollision: conflict(),
  SidecarUnparseable: invalid(),
  PhaseBRefused: conflict(),
  MaxLagUnrepresentable: invalid(),
  ApprovalSnapshotMissing: conflict(),
  SnapshotTampered: conflict("the approved snapshot changed: approve the spec again"),
  ApprovalCasLost: conflict(),
  ProductApprovalNeedsHuman: row(403, "a human (PCLI_PRINCIPAL=human) approves product specs"),
  ProductRecordsUnavailable: failed(),
  ModelsOutsideProject: invalid(),
  // pcli serve
  ServeUnauthorized: row(401, "send Authorization: Bearer <PCLI_SERVE_TOKEN>"),
  ServeTokenRequired: invalid("export PCLI_SERVE_TOKEN, or bind 127.0.0.1 (the default)"),
  ServeListenFailed: unavailable("choose another --port, or stop what holds this one"),
  RouteNotFound: notFound("GET /api/v1/openapi.json lists the routes"),
  NotImplemented: row(501),
  MethodNotAllowed: row(405, "every route is GET; see /api/v1/openapi.json"),
  UnknownQueryParameter: row(400, "GET /api/v1/openapi.json lists each route's parameters", 2),
  // a command that printed its report and still fails (run, validate, policy test)
  ReportedFailure: failed(),
  RunInterrupted: { exit: 130, status: 500 },
  ProductVerifyNeedsInput: row(422),
  ProductVerifyFailed: row(422, undefined, 2)
}

/**
 * A command printed its report and the report says it failed (a run with failed models, a
 * validate with errors, policy tests that differ): exit 1 with a one-line note, no second document.
 */
export class ReportedFailure extends Data.TaggedError("ReportedFailure")<{ readonly code: string; readonly detail: string }> {
  readonly outputPrinted = true
  override get message() {
    return this.detail
  }
}

/** Ctrl-C stopped a run after its in-flight models; the partial report is printed and recorded: exit 130. */
export class RunInterrupted extends Data.TaggedError("RunInterrupted")<{ readonly runId: string; readonly notStarted: number }> {
  readonly code = "interrupted"
  readonly outputPrinted = true
  override get message() {
    return `run ${this.runId} interrupted: ${this.notStarted} model(s) not started`
  }
}

/** `product verify` printed its report and it says needs_input: exit 1 (decisions.md item 2). */
export class ProductVerifyNeedsInput extends Data.TaggedError("ProductVerifyNeedsInput")<{ readonly product: string }> {
  readonly code = "product-verify-needs-input"
  readonly outputPrinted = true
  override get message() {
    return `product ${this.product}: verify needs input (paste the [policy] block it printed)`
  }
}

/** `product verify` printed its report and it says fail: exit 2 (the only command that uses 2 for a result). */
export class ProductVerifyFailed extends Data.TaggedError("ProductVerifyFailed")<{ readonly product: string }> {
  readonly code = "product-verify-failed"
  readonly outputPrinted = true
  override get message() {
    return `product ${this.product}: verify failed`
  }
}

/** What every surface shows for a failure: body fields, exit code and HTTP status. */
export interface DescribedError extends ErrorBody {
  readonly exit: number
  readonly status: number
  /** The command already printed its output (a report with failures): print no second document. */
  readonly outputPrinted: boolean
}

const MAX_MESSAGE = 1_000

/** One line, no terminal control codes, bounded: error text may echo user input. */
export const oneLine = (text: string): string => {
  // eslint-disable-next-line no-control-regex
  const first = (text.split("\n")[0] ?? "").replace(/[\u0000-\u001f\u007f-\u009f]/g, "")
  return first.length > MAX_MESSAGE ? `${first.slice(0, MAX_MESSAGE - 1)}…` : first
}

interface TaggedWithCode {
  readonly _tag: string
  readonly code: string
  readonly message: string
  readonly outputPrinted?: boolean
}

const isTaggedWithCode = (e: unknown): e is TaggedWithCode =>
  typeof e === "object" && e !== null && typeof (e as { _tag?: unknown })._tag === "string" && typeof (e as { code?: unknown }).code === "string"

const internal = (detail: string): DescribedError => ({
  code: "internal",
  message: oneLine(`internal error: ${detail}`),
  exit: 1,
  status: 500,
  outputPrinted: false
})

/** A typed failure as its row says; an untabled tag is still shown with its own code. */
export const describeError = (e: unknown): DescribedError => {
  if (!isTaggedWithCode(e)) return internal(e instanceof Error ? e.message : String(e))
  const r = errorTable[e._tag] ?? failed()
  const base = { code: e.code, message: oneLine(e.message), exit: r.exit, status: r.status, outputPrinted: e.outputPrinted === true }
  return r.hint === undefined ? base : { ...base, remediation_hint: r.hint }
}

/** A whole failed run: the typed failure if there is one, else interruption or a defect. */
export const describeCause = (cause: Cause.Cause<unknown>): DescribedError => {
  const failure = Cause.failureOption(cause)
  if (Option.isSome(failure)) return describeError(failure.value)
  if (Cause.isInterruptedOnly(cause)) return { code: "interrupted", message: "interrupted", exit: 130, status: 500, outputPrinted: false }
  const defect = Cause.squash(cause)
  return internal(defect instanceof Error ? defect.message : String(defect))
}

/** The wire body of an error (HTTP, MCP, the CLI's JSON error document). */
export const errorBody = (d: DescribedError): ErrorBody =>
  d.remediation_hint === undefined ? { code: d.code, message: d.message } : { code: d.code, message: d.message, remediation_hint: d.remediation_hint }
