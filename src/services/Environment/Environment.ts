import { Context } from "effect"

/**
 * The process environment as seen by pcli: `${VAR}` substitution and the variables the
 * interface names (PCLI_PRINCIPAL, WAREHOUSE_TOKEN, ...). Only `src/layers` reads the real one.
 */
export class Environment extends Context.Tag("pcli/Environment")<
  Environment,
  Readonly<Record<string, string | undefined>>
>() {}
