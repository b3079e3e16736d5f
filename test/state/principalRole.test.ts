// decisions.md 36: the principal a database role makes, and every claim that disagrees refused.
import { Either } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { type DatabaseRole, type PrincipalClaim, verifyAgainstRole } from "../../src/services/Principal/databaseRole"

const role = (name: string, human: boolean, agent: boolean): DatabaseRole => ({ name, human, agent })
const noClaim: PrincipalClaim = { class: undefined, id: undefined, idOrigin: "PCLI_PRINCIPAL_ID" }
const code = (result: Either.Either<unknown, { readonly code: string }>) => (Either.isLeft(result) ? result.left.code : "ok")

describe("verifyAgainstRole", () => {
  it("takes class from the group and id from the role, marked as the role's", () => {
    expect(verifyAgainstRole(role("ci_bot", false, true), noClaim)).toEqual(Either.right({ class: "agent", id: "ci_bot", source: "role" }))
    expect(verifyAgainstRole(role("alice", true, false), noClaim)).toEqual(Either.right({ class: "human", id: "alice", source: "role" }))
  })

  it("refuses a role in neither group, or in both", () => {
    expect(code(verifyAgainstRole(role("postgres", false, false), noClaim))).toBe("principal-role-missing")
    expect(code(verifyAgainstRole(role("both", true, true), noClaim))).toBe("principal-role-ambiguous")
  })

  it("refuses a role name that is no principal id", () => {
    expect(code(verifyAgainstRole(role("Alice Smith", true, false), noClaim))).toBe("invalid-principal-id")
  })

  it("a forged PCLI_PRINCIPAL=human under an agent role is principal-mismatch, carrying the verified agent for its row", () => {
    const result = verifyAgainstRole(role("ci_bot", false, true), { ...noClaim, class: "human" })
    expect(code(result)).toBe("principal-mismatch")
    if (Either.isLeft(result) && result.left._tag === "PrincipalMismatch") {
      expect(result.left.verified).toEqual({ class: "agent", id: "ci_bot", source: "role" })
      expect(result.left.message).toBe("PCLI_PRINCIPAL=human disagrees with the state store's database role, which makes this agent (a member of pcli_agent)")
    }
  })

  it("an agreeing claim passes; any disagreeing class or id is refused (property)", () => {
    const name = fc.stringMatching(/^[a-z0-9._-]{1,20}$/)
    fc.assert(
      fc.property(name, fc.boolean(), fc.option(fc.constantFrom("human", "agent", "")), fc.option(name), fc.constantFrom("--principal-id", "PCLI_PRINCIPAL_ID"), (n, human, cls, id, origin) => {
        const actual = human ? "human" : "agent"
        const claim: PrincipalClaim = { class: cls ?? undefined, id: id ?? undefined, idOrigin: origin as PrincipalClaim["idOrigin"] }
        const result = verifyAgainstRole(role(n, human, !human), claim)
        const disagrees = (cls !== null && cls !== "" && cls !== actual) || (id !== null && id !== n)
        expect(code(result)).toBe(disagrees ? "principal-mismatch" : "ok")
      })
    )
  })
})
