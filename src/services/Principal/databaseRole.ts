import { SqlClient } from "@effect/sql"
import { Data, Effect, Either } from "effect"
import type { PrincipalClass } from "../Ledger/Ledger"
import { type DatabaseRole, PrincipalRoleMissing, ROLE_QUERY } from "../StateStore/pgRoles"
import { type ActingPrincipal, InvalidPrincipalId } from "./Principal"

export { type DatabaseRole, PrincipalRoleMissing, ROLE_QUERY }

/**
 * decisions.md 36: on a PostgreSQL store the principal is the connection's role. Its class is the
 * group it belongs to (`pcli_human` or `pcli_agent`), its id is `current_user`; what the environment
 * or a flag claims is checked against them, never taken.
 */

export class DatabaseRoleUnreadable extends Data.TaggedError("DatabaseRoleUnreadable")<{ readonly detail: string }> {
  readonly code = "principal-role-unreadable"
  override get message() {
    return `could not read the database role of the state store's connection: ${this.detail}`
  }
}

/** The role of the connection `sql` holds. */
export const readDatabaseRole = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql.unsafe<{ name: string; human: boolean; agent: boolean }>(ROLE_QUERY)
  const row = rows[0]
  if (row === undefined) return yield* new DatabaseRoleUnreadable({ detail: "no row" })
  return { name: row.name, human: row.human === true, agent: row.agent === true } satisfies DatabaseRole
}).pipe(Effect.catchTag("SqlError", (e) => Effect.fail(new DatabaseRoleUnreadable({ detail: e.message }))))

export class PrincipalRoleAmbiguous extends Data.TaggedError("PrincipalRoleAmbiguous")<{ readonly role: string }> {
  readonly code = "principal-role-ambiguous"
  override get message() {
    return `database role ${JSON.stringify(this.role)} is in both pcli_human and pcli_agent; a principal has one class`
  }
}

/** What the environment and the flags said, before the database answers. */
export interface PrincipalClaim {
  /** PCLI_PRINCIPAL as set (unset or empty: no claim). */
  readonly class: string | undefined
  /** `--principal-id`, else PCLI_PRINCIPAL_ID (unset or empty: no claim). */
  readonly id: string | undefined
  readonly idOrigin: "--principal-id" | "PCLI_PRINCIPAL_ID"
}

export class PrincipalMismatch extends Data.TaggedError("PrincipalMismatch")<{
  readonly origin: string
  readonly claimed: string
  readonly actual: string
  /** The verified principal the refusal row is recorded under. */
  readonly verified: ActingPrincipal
}> {
  readonly code = "principal-mismatch"
  override get message() {
    return `${this.origin}=${this.claimed} disagrees with the state store's database role, which makes this ${this.actual}`
  }
}

export type RoleVerificationError = PrincipalRoleMissing | PrincipalRoleAmbiguous | PrincipalMismatch | InvalidPrincipalId

const idGrammar = /^[a-z0-9._-]{1,63}$/

/** The principal `role` makes, with any claim that disagrees refused. */
export const verifyAgainstRole = (role: DatabaseRole, claim: PrincipalClaim): Either.Either<ActingPrincipal, RoleVerificationError> => {
  if (role.human && role.agent) return Either.left(new PrincipalRoleAmbiguous({ role: role.name }))
  if (!role.human && !role.agent) return Either.left(new PrincipalRoleMissing({ role: role.name }))
  if (!idGrammar.test(role.name)) return Either.left(new InvalidPrincipalId({ value: role.name, origin: "the database role" }))
  const cls: PrincipalClass = role.human ? "human" : "agent"
  const verified: ActingPrincipal = { class: cls, id: role.name, source: "role" }
  if (claim.class !== undefined && claim.class !== "" && claim.class !== cls) {
    return Either.left(new PrincipalMismatch({ origin: "PCLI_PRINCIPAL", claimed: claim.class, actual: `${cls} (a member of pcli_${cls})`, verified }))
  }
  if (claim.id !== undefined && claim.id !== "" && claim.id !== role.name) {
    return Either.left(new PrincipalMismatch({ origin: claim.idOrigin, claimed: claim.id, actual: `role ${role.name}`, verified }))
  }
  return Either.right(verified)
}

/**
 * The principal of a command on a PostgreSQL store: `claimed` (what the environment and flags
 * resolved) checked against the connection's role. PCLI_PRINCIPAL is a claim only when set; an MCP
 * server claims `agent`. The default id `unnamed` claims nothing.
 */
export const principalFromRole = (claimed: ActingPrincipal, principalEnv: string | undefined) =>
  Effect.flatMap(readDatabaseRole, (role) =>
    verifyAgainstRole(role, {
      class: claimed.source === "mcp_profile" ? "agent" : principalEnv,
      id: claimed.source === "flag" || claimed.source === "env" ? claimed.id : undefined,
      idOrigin: claimed.source === "flag" ? "--principal-id" : "PCLI_PRINCIPAL_ID"
    })
  )
