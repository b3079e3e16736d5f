import { Effect } from "effect"

/** For commands that succeed but must exit non-zero (validate errors, partial runs). */
export const setExitCode = (code: number) => Effect.sync(() => void (process.exitCode = code))
