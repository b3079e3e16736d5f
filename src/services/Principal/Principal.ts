import { Context, Data, Effect } from "effect"
import { Environment } from "../Environment/Environment"
import type { PrincipalClass, PrincipalIdSource } from "../Ledger/Ledger"

/** Who acts: the class policy enforces, and a self-asserted, never verified id. */
export interface ActingPrincipal {
  readonly class: PrincipalClass
  readonly id: string
  readonly source: PrincipalIdSource
}

export class Principal extends Context.Tag("pcli/Principal")<Principal, ActingPrincipal>() {}

export class InvalidPrincipalClass extends Data.TaggedError("InvalidPrincipalClass")<{ readonly value: string }> {
  readonly code = "invalid-principal"
  override get message() {
    return `PCLI_PRINCIPAL must be "human" or "agent", got ${JSON.stringify(this.value)}`
  }
}

export class InvalidPrincipalId extends Data.TaggedError("InvalidPrincipalId")<{
  readonly value: string
  readonly origin: string
}> {
  readonly code = "invalid-principal-id"
  override get message() {
    return `${this.origin} must match [a-z0-9._-]{1,63}, got ${JSON.stringify(this.value)}`
  }
}

/** decisions.md item 26: ids pcli itself writes (the default, the audit filter, MCP profiles) cannot be claimed. */
export class PrincipalIdReserved extends Data.TaggedError("PrincipalIdReserved")<{
  readonly value: string
  readonly origin: string
  /** Who claimed it: the refusal row records this class under no id (issue 32 item 7). */
  readonly principal: PrincipalClass
  readonly source: PrincipalIdSource
}> {
  readonly code = "principal-id-reserved"
  override get message() {
    return `${this.origin} ${JSON.stringify(this.value)} is reserved: unnamed, unrecorded and ids starting with mcp- are set by pcli itself`
  }
}

const idGrammar = /^[a-z0-9._-]{1,63}$/

/** The default id, the audit filter for rows without an id, and the MCP server's profile ids. */
export const isReservedId = (id: string) => id === "unnamed" || id === "unrecorded" || id.startsWith("mcp-")

/** Class from PCLI_PRINCIPAL (decisions.md item 3): empty or unset is `human`. */
const principalClass = Effect.gen(function* () {
  const raw = (yield* Environment)["PCLI_PRINCIPAL"]
  if (raw === undefined || raw === "") return "human" as const
  return raw === "human" || raw === "agent" ? raw : yield* new InvalidPrincipalClass({ value: raw })
})

/**
 * decisions.md item 3: class from PCLI_PRINCIPAL; id from the flag, else PCLI_PRINCIPAL_ID, else `unnamed`.
 * `flagId` is `--principal-id` as the global options carry it (undefined when not given).
 */
export const resolvePrincipal = (flagId: string | undefined): Effect.Effect<ActingPrincipal, InvalidPrincipalClass | InvalidPrincipalId | PrincipalIdReserved, Environment> =>
  Effect.gen(function* () {
    const env = yield* Environment
    const cls = yield* principalClass
    const [id, source, origin]: readonly [string, PrincipalIdSource, string] = flagId !== undefined
      ? [flagId, "flag", "--principal-id"]
      : env["PCLI_PRINCIPAL_ID"] !== undefined && env["PCLI_PRINCIPAL_ID"] !== ""
        ? [env["PCLI_PRINCIPAL_ID"], "env", "PCLI_PRINCIPAL_ID"]
        : ["unnamed", "default", "default"]
    if (!idGrammar.test(id)) return yield* new InvalidPrincipalId({ value: id, origin })
    if (source !== "default" && isReservedId(id)) return yield* new PrincipalIdReserved({ value: id, origin, principal: cls, source })
    return { class: cls, id, source } satisfies ActingPrincipal
  })

/**
 * The principal under `pcli mcp` (decisions.md item 26): always class `agent`, id `mcp-<profile>`,
 * source `mcp_profile`. PCLI_PRINCIPAL is not read: the server can never act as a human.
 */
export const mcpPrincipal = (profile: string): Effect.Effect<ActingPrincipal, InvalidPrincipalId> =>
  idGrammar.test(profile) && idGrammar.test(`mcp-${profile}`)
    ? Effect.succeed({ class: "agent", id: `mcp-${profile}`, source: "mcp_profile" })
    : Effect.fail(new InvalidPrincipalId({ value: profile, origin: "--profile" }))
