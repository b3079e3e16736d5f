import type { PrincipalRoleMissing } from "./pgRoles"
import { Data } from "effect"

export class StateStoreNewer extends Data.TaggedError("StateStoreNewer")<{
  readonly path: string
  readonly found: number
  readonly supported: number
}> {
  readonly code = "state-store-newer"
  override get message() {
    return `state store ${this.path} has schema version ${this.found}, written by a newer pcli; this pcli supports up to version ${this.supported}`
  }
}

export class StateStoreOlder extends Data.TaggedError("StateStoreOlder")<{
  readonly path: string
  readonly found: number
  readonly supported: number
  /** What to do instead of the SQLite store's own remedy (a PostgreSQL store is never migrated by a command). */
  readonly remedy?: string
}> {
  readonly code = "state-store-older"
  override get message() {
    return `state store ${this.path} has schema version ${this.found} (current ${this.supported}) ${this.remedy ?? "and is opened read-only; run any pcli command on it (e.g. pcli audit) to migrate it"}`
  }
}

export class StateStoreCorrupt extends Data.TaggedError("StateStoreCorrupt")<{
  readonly path: string
  readonly detail: string
}> {
  readonly code = "state-store-corrupt"
  override get message() {
    return `state store ${this.path} cannot be read: ${this.detail}`
  }
}

export class StateStoreIo extends Data.TaggedError("StateStoreIo")<{
  readonly path: string
  readonly detail: string
}> {
  readonly code = "state-store-io"
  override get message() {
    return `state store ${this.path}: ${this.detail}`
  }
}

/** The PostgreSQL server did not answer after the visible retries (decision 36); the detail is redacted. */
export class StateStoreUnreachable extends Data.TaggedError("StateStoreUnreachable")<{
  readonly path: string
  readonly attempts: number
  readonly detail: string
}> {
  readonly code = "state-store-unreachable"
  override get message() {
    return `${this.path} is unreachable after ${this.attempts} attempts: ${this.detail}`
  }
}

/** The PostgreSQL server refused the connection's credentials or database; retrying cannot help. */
export class StateStoreDenied extends Data.TaggedError("StateStoreDenied")<{
  readonly path: string
  readonly detail: string
}> {
  readonly code = "state-store-denied"
  override get message() {
    return `${this.path} refused the connection: ${this.detail}`
  }
}

export type StateStoreError = StateStoreNewer | StateStoreOlder | StateStoreCorrupt | StateStoreIo | StateStoreUnreachable | StateStoreDenied | PrincipalRoleMissing
