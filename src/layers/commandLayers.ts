// Every command's layer, by command: the one place a surface (cli/*.run.ts) gets the services its
// command reads. Each layer's module loads when its command runs, so no command pays for another's.
import { Effect, Layer } from "effect"
import { compileLayer, policyCheckLayer, policyShowLayer, validateLayer } from "./lightCommandLayers"
import type { ServeSettings } from "./HttpServeLayer"
import type { GlobalOptions } from "./ProjectContextLayer"

const loaded = <M, A, E, R>(load: () => Promise<M>, pick: (m: M) => Layer.Layer<A, E, R>) => Layer.unwrapEffect(Effect.map(Effect.promise(load), pick))
const project = () => import("./ProjectLayer")
const govern = () => import("./GovernLayer")
const reclaim = () => import("./ReclaimLayer")
const products = () => import("./ProductLayer")

export const commandLayer = {
  compile: compileLayer,
  policyCheck: policyCheckLayer,
  policyShow: policyShowLayer,
  validate: validateLayer,
  audit: (o: GlobalOptions) => loaded(project, (m) => m.StateReadLayer(o)),
  /** The custody chain also reads plan files and compiles the models for the blast radius. */
  auditCustody: (o: GlobalOptions) => loaded(govern, (m) => m.ReviewLayer(o, false)),
  brief: (o: GlobalOptions) => loaded(project, (m) => m.StateReadLayer(o)),
  /** Brief's one write, to a store that exists. */
  briefCursor: (o: GlobalOptions) => loaded(project, (m) => m.StateWriteLayer(o)),
  discover: (o: GlobalOptions) => loaded(() => import("./DiscoverLayer"), (m) => m.DiscoverLayer(o)),
  history: (o: GlobalOptions) => loaded(() => import("./HistoryLayer"), (m) => m.HistoryLayer(o)),
  playground: (o: GlobalOptions) => loaded(project, (m) => m.BareLayer(o)),
  run: (o: GlobalOptions, target: string | undefined) => loaded(() => import("./RunLayer"), (m) => m.RunLayer(o, target)),
  plan: (o: GlobalOptions) => loaded(govern, (m) => m.PlanLayer(o)),
  review: (o: GlobalOptions) => loaded(govern, (m) => m.ReviewLayer(o, false)),
  reviewApprove: (o: GlobalOptions) => loaded(govern, (m) => m.ReviewLayer(o, true)),
  apply: (o: GlobalOptions, target: string | undefined) => loaded(govern, (m) => m.ApplyLayer(o, target)),
  backfill: (o: GlobalOptions) => loaded(reclaim, (m) => m.BackfillLayer(o)),
  gc: (o: GlobalOptions) => loaded(reclaim, (m) => m.GcLayer(o, false)),
  gcDryRun: (o: GlobalOptions) => loaded(reclaim, (m) => m.GcLayer(o, true)),
  restore: (o: GlobalOptions) => loaded(reclaim, (m) => m.GcLayer(o, false)),
  policyTest: (o: GlobalOptions) => loaded(project, (m) => m.PolicyReadLayer(o)),
  policyReplay: (o: GlobalOptions) => loaded(project, (m) => m.PolicyReadLayer(o)),
  policyFreeze: (o: GlobalOptions) => loaded(project, (m) => m.PolicyWriteLayer(o)),
  productRead: (o: GlobalOptions) => loaded(products, (m) => m.ProductLayer(o, "read")),
  productWrite: (o: GlobalOptions) => loaded(products, (m) => m.ProductLayer(o, "write")),
  /** Serve's checks: the project resolved (a pcli.toml that does not load is refused); the server's own layer is HttpServeLayer. */
  serve: (o: GlobalOptions) => loaded(project, (m) => m.ProjectLayer(o, false)),
  /** The server itself: the HttpApi and the dashboard over one read-only context. */
  serveHttp: (o: GlobalOptions, settings: ServeSettings) => loaded(() => import("./HttpServeLayer"), (m) => m.HttpServeLayer(settings, o)),
  stateInfo: (o: GlobalOptions) => loaded(project, (m) => m.StateReadLayer(o))
}
