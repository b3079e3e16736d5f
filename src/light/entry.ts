/** A light command's entry and bundle name: its words joined by `-` (`policy check`: src/light/policy-check.ts, dist/pcli-policy-check.cjs). */
export const entryName = (path: ReadonlyArray<string>) => path.join("-")
