// The light commands, and for each the options its handler gets from a line argv.ts read in full
// (ReadLine), as @effect/cli's parser gives them in the full bundle: the light entries (src/light/<path>.ts)
// run these; test/cli/lightReading.property.test.ts checks every mapping against @effect/cli's parse.
import { Option } from "effect"
import type { ReadLine } from "../cli/argv"
import type { AuditOptions } from "../cli/audit.run"
import type { BriefOptions } from "../cli/brief.run"
import type { ReviewOptions } from "../cli/review.run"
import type { CommonOptions } from "../cli/globalOptions"
import type { HistoryOptions } from "../cli/history.run"
import type { LineageOptions, LsOptions } from "../cli/inspect.run"
import type { ReplayOptions } from "../cli/policy.run"
import type { CheckOptions } from "../cli/policyRead.run"

const first = (line: ReadLine, flag: string) => line.flags[flag]?.[0]

/** An optional flag's value. */
const optional = (line: ReadLine, flag: string) => Option.fromNullable(first(line, flag))

/** A required flag's value (the reading holds every required flag). */
const required = (line: ReadLine, flag: string) => first(line, flag) ?? ""

/** A switch: true when given. */
const given = (line: ReadLine, flag: string) => Object.hasOwn(line.flags, flag)

/** A flag whose values argv.ts has checked against the command's choices. */
const choice = <A extends string>(line: ReadLine, flag: string) => optional(line, flag) as Option.Option<A>

const common = (line: ReadLine): CommonOptions => ({
  output: first(line, "--output") === "json" ? "json" : "text",
  principalId: optional(line, "--principal-id"),
  config: optional(line, "--config"),
  models: optional(line, "--models"),
  statePath: optional(line, "--state-path"),
  stateNamespace: optional(line, "--state-namespace")
})

const named = (line: ReadLine) => ({ ...common(line), name: line.args[0] ?? "" })

/** Every light command (its words joined by a space), and its handler's options. */
export const LIGHT_COMMANDS = {
  validate: common,
  compile: common,
  "state info": common,
  "policy show": common,
  "policy test": common,
  "policy check": (line): CheckOptions => ({
    ...common(line),
    principal: required(line, "--principal"),
    capability: required(line, "--capability"),
    model: required(line, "--model")
  }),
  "policy replay": (line): ReplayOptions => {
    // `--config` names the proposed pcli.toml here (cli/policy.ts).
    const { config: _project, ...rest } = common(line)
    return { ...rest, proposed: required(line, "--config"), since: optional(line, "--since"), failOnLoosen: given(line, "--fail-on-loosen") }
  },
  audit: (line): AuditOptions => ({
    ...common(line),
    verify: given(line, "--verify"),
    expectHead: optional(line, "--expect-head"),
    subject: optional(line, "--for"),
    scorecard: given(line, "--scorecard"),
    by: choice(line, "--by"),
    window: optional(line, "--window"),
    product: optional(line, "--product"),
    actor: optional(line, "--actor"),
    since: optional(line, "--since"),
    model: optional(line, "--model"),
    effect: choice(line, "--effect"),
    limit: Option.map(optional(line, "--limit"), Number),
    cursor: optional(line, "--cursor")
  }),
  history: (line): HistoryOptions => ({
    ...common(line),
    runId: Option.fromNullable(line.args[0]),
    last: Option.map(optional(line, "--last"), Number),
    model: optional(line, "--model")
  }),
  ls: (line): LsOptions => ({ ...common(line), select: line.flags["--select"] ?? [] }),
  lineage: (line): LineageOptions => ({
    ...common(line),
    model: line.args[0] ?? "",
    column: optional(line, "--column"),
    upstream: given(line, "--upstream"),
    downstream: given(line, "--downstream"),
    depth: optional(line, "--depth")
  }),
  brief: (line): BriefOptions => ({ ...common(line), since: Option.getOrElse(choice<BriefOptions["since"]>(line, "--since"), () => "last" as const) }),
  review: (line): ReviewOptions => ({
    ...common(line),
    planId: Option.fromNullable(line.args[0]),
    queue: given(line, "--queue"),
    list: given(line, "--list"),
    base: optional(line, "--base"),
    approve: given(line, "--approve"),
    status: given(line, "--status")
  }),
  "product status": named,
  "product list": common,
  "product journal": named,
  "product verify": named
} satisfies Record<string, (line: ReadLine) => unknown>

export type LightCommand = keyof typeof LIGHT_COMMANDS

/** The options a light command's handler takes. */
export type LightOptions<C extends LightCommand> = ReturnType<(typeof LIGHT_COMMANDS)[C]>

