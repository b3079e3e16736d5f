import { Data, Effect, Option, Redacted, Schedule, Stream } from "effect"
import { isIP } from "node:net"
import { dirname } from "node:path"
import { Environment } from "../services/Environment/Environment"
import { ProjectContext } from "../services/ProjectConfig/ProjectContext"
import { ledgerHead } from "../services/Ledger/head"
import { ChangeFeed, type Watched } from "../services/Serve/ChangeFeed"
import { type Served, ServeReads } from "../services/Serve/ServeReads"
import { InvalidFlagValue } from "./errors"

/** `pcli serve --host` off loopback with no token: anyone on the network could read the ledger. */
export class ServeTokenRequired extends Data.TaggedError("ServeTokenRequired")<{ readonly host: string }> {
  readonly code = "serve-token-required"
  override get message() {
    return `refusing to bind ${this.host} without PCLI_SERVE_TOKEN: off loopback every route but health needs a bearer token`
  }
}

export interface ServeInput {
  readonly host: string
  readonly port: number
}

const isLoopback = (host: string) =>
  host === "localhost" || host === "::1" || host === "[::1]" || (isIP(host) === 4 && host.startsWith("127."))

/** A port outside 0..65535 is a usage error. */
export const checkServeFlags = (input: ServeInput): Effect.Effect<void, InvalidFlagValue> =>
  !Number.isInteger(input.port) || input.port < 0 || input.port > 65535
    ? Effect.fail(new InvalidFlagValue({ flag: "--port", detail: `--port must be 0..65535, got ${input.port}` }))
    : Effect.void

/**
 * `pcli serve`'s checks before anything listens: the port, a bearer token off loopback, and the
 * project (a pcli.toml that does not load is refused here, as every command refuses it). The token.
 */
export const serveToken = (input: ServeInput) =>
  Effect.gen(function* () {
    yield* checkServeFlags(input)
    const env = yield* Environment
    const token = Option.fromNullable(env.PCLI_SERVE_TOKEN).pipe(Option.filter((t) => t !== ""), Option.map(Redacted.make))
    if (!isLoopback(input.host) && Option.isNone(token)) return yield* new ServeTokenRequired({ host: input.host })
    yield* ProjectContext
    return token
  })

/** A read command on `pcli serve`'s current read context (built again first when pcli.toml or the store changed). */
export const onServedContext = <A, E>(self: Effect.Effect<A, E, Served>) => Effect.flatMap(ServeReads, (reads) => reads.run(self))

/** As `onServedContext`, for a value that depends on pcli.toml and the store alone: kept per route until either changes. */
export const keptOnServedContext = <A, E>(route: string, self: Effect.Effect<A, E, Served>) => Effect.flatMap(ServeReads, (reads) => reads.memo(route, self))

export type { Served }

/** What `/api/v1/events` watches: the models (with subfolders), the store's folder and pcli.toml's; the working directory when the project does not load. */
export const servedPaths = (cwd: string): Effect.Effect<Watched, never, ServeReads> =>
  onServedContext(Effect.map(ProjectContext, (p): Watched => ({ trees: [p.modelsDir], folders: [dirname(p.state.path), p.root] }))).pipe(
    Effect.orElseSucceed((): Watched => ({ trees: [], folders: [cwd] }))
  )

const KEEPALIVE = Stream.fromSchedule(Schedule.spaced("15 seconds")).pipe(Stream.as(": keepalive\n\n"))

/** One Server-Sent Event: `ready` on connect, `change` after each change burst, with the ledger head's seq (null when the store cannot be read). */
const eventFrame = (name: "ready" | "change", seq: number | null) => `event: ${name}\ndata: ${JSON.stringify({ head_seq: seq })}\n\n`

/** `/api/v1/events`: the frames one client receives; a comment every 15 s keeps idle proxies from closing it. */
export const serveEvents = Effect.gen(function* () {
  const feed = yield* ChangeFeed
  const reads = yield* ServeReads
  const headSeq = Effect.orElseSucceed(reads.run(Effect.map(ledgerHead, (h): number | null => h.seq)), () => null)
  const frames = Stream.concat(
    Stream.fromEffect(Effect.map(headSeq, (seq) => eventFrame("ready", seq))),
    Stream.mapEffect(feed.changes, () => Effect.map(headSeq, (seq) => eventFrame("change", seq)))
  )
  return Stream.merge(frames, KEEPALIVE, { haltStrategy: "left" })
})

/**
 * As `onServedContext`, for a read of the models and the store alone (ls, lineage, history): the value
 * is kept per route while no file under the watched folders was notified changed since it was computed.
 */
export const keptWhileFilesUnchanged = <A, E>(route: string, self: Effect.Effect<A, E, Served>) =>
  Effect.gen(function* () {
    const feed = yield* ChangeFeed
    const before = feed.generation()
    const hit = feed.kept.get(route)
    if (feed.watching && hit !== undefined && hit.generation === before) return hit.value as A
    const value = yield* onServedContext(self)
    // A change while it was computed leaves nothing kept: the next request computes again.
    if (feed.watching && feed.generation() === before) feed.kept.set(route, { generation: before, value })
    return value
  })
