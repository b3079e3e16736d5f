// Every command's layer, by command: the one place a surface (cli/*.run.ts) gets the services its
// command reads (`import * as commandLayer`). Each layer's module loads when its command runs, so no
// command pays for another's; one export per command, so a light bundle keeps only the layers its
// command names (a single object would carry every layer into every light entry).
import { Effect, Layer } from "effect"
import { compileLayer, inspectLayer, policyCheckLayer, policyReplayLayer, policyShowLayer, policyTestLayer, validateLayer } from "./lightCommandLayers"
import type { ServeSettings } from "./HttpServeLayer"
import type { GlobalOptions } from "./ProjectContextLayer"

const loaded = <M, A, E, R>(load: () => Promise<M>, pick: (m: M) => Layer.Layer<A, E, R>) => Layer.unwrapEffect(Effect.map(Effect.promise(load), pick))
const project = () => import("./ProjectLayer")
const govern = () => import("./GovernLayer")
const reviewing = () => import("./ReviewLayer")
const reclaim = () => import("./ReclaimLayer")
const products = () => import("./ProductLayer")
const witness = () => import("./WitnessLayers")

export const compile = compileLayer
export const inspect = inspectLayer
export const policyCheck = policyCheckLayer
export const policyShow = policyShowLayer
export const validate = validateLayer
export const audit = (o: GlobalOptions) => loaded(project, (m) => m.StateReadLayer(o))
/** `audit --verify` also reads the warehouse's witnessed head (decisions 35). */
export const auditVerify = (o: GlobalOptions, target: string | undefined) => loaded(() => import("./WitnessWarehouse"), (m) => m.AuditVerifyLayer(o, target))
/** The warehouse a served `/audit/verify` reads its witness from, opened READ_ONLY per request (a kept one would lock `pcli run` out). */
export const witnessRead = loaded(() => import("./WitnessWarehouse"), (m) => m.witnessWarehouse(undefined, true))
/** The custody chain also reads plan files and compiles the models for the blast radius. */
export const auditCustody = (o: GlobalOptions) => loaded(reviewing, (m) => m.ReviewLayer(o, false))
export const brief = (o: GlobalOptions) => loaded(project, (m) => m.StateReadLayer(o))
/** Brief's one write, to a store that exists, inside brief's own layer (it needs the project brief resolved). */
export const briefCursor = loaded(project, (m) => m.CursorWriteLayer)
export const discover = (o: GlobalOptions) => loaded(() => import("./DiscoverLayer"), (m) => m.DiscoverLayer(o))
/** `pcli show <model>`: the compiler over the project, no store. */
export const show = (o: GlobalOptions) => loaded(() => import("./RunLayer"), (m) => m.CompileLayer(o))
export const history = (o: GlobalOptions) => loaded(() => import("./HistoryLayer"), (m) => m.HistoryLayer(o))
export const playground = (o: GlobalOptions) => loaded(project, (m) => m.BareLayer(o))
export const test = (o: GlobalOptions) => loaded(() => import("./RunLayer"), (m) => m.TestLayer(o))
/** `pcli test`'s one write (its freshness checks), inside test's own layer, to the store of the project it resolved. */
export const testRecord = loaded(project, (m) => m.StoreWriteLayer)
export const run = (o: GlobalOptions, target: string | undefined) => loaded(() => import("./RunLayer"), (m) => m.RunLayer(o, target))
export const plan = (o: GlobalOptions) => loaded(govern, (m) => m.PlanLayer(o))
export const review = (o: GlobalOptions) => loaded(reviewing, (m) => m.ReviewLayer(o, false))
/** `review <id> --status`: the plans and the store read-only, no compiler (its layer module loads none). */
export const reviewStatus = (o: GlobalOptions) => loaded(() => import("./PlansLayer"), (m) => m.PlansReadLayer(o))
export const reviewApprove = (o: GlobalOptions) => loaded(reviewing, (m) => m.ReviewLayer(o, true))
export const apply = (o: GlobalOptions, target: string | undefined) => loaded(govern, (m) => m.ApplyLayer(o, target))
export const backfill = (o: GlobalOptions) => loaded(reclaim, (m) => m.BackfillLayer(o))
export const gc = (o: GlobalOptions) => loaded(reclaim, (m) => m.GcLayer(o, false))
export const gcDryRun = (o: GlobalOptions) => loaded(reclaim, (m) => m.GcLayer(o, true))
export const restore = (o: GlobalOptions) => loaded(reclaim, (m) => m.GcLayer(o, false))
export const policyTest = policyTestLayer
export const policyReplay = policyReplayLayer
/** Freeze and unfreeze also witness the new ledger head in the warehouse (decisions 35). */
export const policyFreeze = (o: GlobalOptions) => loaded(witness, (m) => m.FreezeLayer(o))
export const productRead = (o: GlobalOptions) => loaded(products, (m) => m.ProductLayer(o, "read"))
export const productWrite = (o: GlobalOptions) => loaded(products, (m) => m.ProductLayer(o, "write"))
/** Serve's checks: the project resolved (a pcli.toml that does not load is refused); the server's own layer is HttpServeLayer. */
export const serve = (o: GlobalOptions) => loaded(project, (m) => m.ProjectLayer(o, false))
/** The server itself: the HttpApi and the dashboard over one read-only context. */
export const serveHttp = (o: GlobalOptions, settings: ServeSettings) => loaded(() => import("./HttpServeLayer"), (m) => m.HttpServeLayer(settings, o))
export const stateInfo = (o: GlobalOptions) => loaded(project, (m) => m.StateInfoLayer(o))
/** Init and migrate open their stores themselves: init as a DBA's role (in neither principal group), migrate two stores. */
export const stateInit = (o: GlobalOptions) => loaded(project, (m) => m.ProjectLayer(o, false))
export const stateMigrate = (o: GlobalOptions) => loaded(project, (m) => m.ProjectLayer(o, false))
