import { Data } from "effect"

/** `pcli branch create` named a branch that exists already. */
export class BranchExists extends Data.TaggedError("BranchExists")<{ readonly name: string }> {
  readonly code = "branch-exists"
  override get message() {
    return `branch ${this.name} exists already`
  }
}

/** A command named a branch (or a base) the state store does not hold. */
export class UnknownBranch extends Data.TaggedError("UnknownBranch")<{ readonly name: string }> {
  readonly code = "unknown-branch"
  override get message() {
    return `no branch named ${this.name}`
  }
}

/** A branch name that is not a lower-case SQL identifier (it names the branch's view schemas). */
export class InvalidBranchName extends Data.TaggedError("InvalidBranchName")<{ readonly name: string }> {
  readonly code = "invalid-branch-name"
  override get message() {
    return `branch name ${JSON.stringify(this.name)} is not an identifier: [a-z_][a-z0-9_]{0,39}, not prod`
  }
}

/** Production is every branch's base and the promote target: it cannot be dropped. */
export class ProductionNotDroppable extends Data.TaggedError("ProductionNotDroppable")<{}> {
  readonly code = "production-not-droppable"
  override get message() {
    return "prod is production: it cannot be dropped"
  }
}

/** A promote of a branch that has never run: there is nothing built to promote. */
export class BranchNeverRun extends Data.TaggedError("BranchNeverRun")<{ readonly name: string }> {
  readonly code = "branch-never-run"
  override get message() {
    return `branch ${this.name} has never run: pcli run --branch ${this.name} first`
  }
}

/** The branch ran again (its view targets changed) after the promote plan was written. */
export class BranchMoved extends Data.TaggedError("BranchMoved")<{ readonly name: string; readonly model: string }> {
  readonly code = "branch-moved"
  override get message() {
    return `branch ${this.name} moved since the promote was planned (model ${this.model}): plan the promote again`
  }
}

/** The config or a model file changed after the promote was planned and approved. */
export class StateHashMismatch extends Data.TaggedError("StateHashMismatch")<{ readonly planned: string; readonly now: string }> {
  readonly code = "state-hash-mismatch"
  override get message() {
    return `the project changed after the promote was planned (state ${this.planned.slice(0, 12)}, now ${this.now.slice(0, 12)}): plan and approve it again`
  }
}

/** A rollback with no applied promote to undo (or a --to plan that was never applied). */
export class NothingToRollBack extends Data.TaggedError("NothingToRollBack")<{ readonly detail: string }> {
  readonly code = "no-previous-promote"
  override get message() {
    return this.detail
  }
}
