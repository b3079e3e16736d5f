import * as fc from "fast-check"

/** Secrets only ever placed in secret fields; no output may contain either. */
export const CANARY = "CANARYqz7"
export const NUMBER_CANARY = "7373737373"
export const canaryEnv = { S: `env-${CANARY}`, N: NUMBER_CANARY, SCALAR: "true" } as const

export const leaksCanary = (text: string) => text.includes(CANARY) || text.includes(NUMBER_CANARY)

const key = fc.constantFrom("a", "b", "x_1", '"quoted key"', "token", "k")

/** A secret as any TOML value: every string form, bare words, numbers, `${VAR}`s, nested in arrays and inline tables. */
const secretLeaf = fc.constantFrom(
  `"${CANARY}"`,
  `'${CANARY}'`,
  `"""${CANARY}"""`,
  `'''\n${CANARY}'''`,
  NUMBER_CANARY,
  `-${NUMBER_CANARY}`,
  `${NUMBER_CANARY}.5`,
  CANARY,
  `"\${S}"`,
  "${S}",
  "${N}",
  `'\${S}'`,
  `"pre-${CANARY}-\${S}"`,
  `"${CANARY}\\u001b[2J"`,
  `"${CANARY}${"y".repeat(300)}"`
)

const secretValue: fc.Arbitrary<string> = fc.letrec<{ value: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", maxDepth: 4 },
    secretLeaf,
    fc.array(tie("value"), { maxLength: 3 }).map((items) => `[${items.join(", ")}]`),
    fc.tuple(key, tie("value")).map(([k, v]) => `{ ${k} = ${v} }`)
  )
})).value

/** `field = value` or `field.a.b = value`: the secret as a table at some depth. */
const secretAssignment = (field: string) =>
  fc
    .tuple(fc.array(key, { maxLength: 3 }), secretValue)
    .map(([dots, value]) => `${[field, ...dots].join(".")} = ${value}`)

const plainValue = fc.oneof(
  fc.constantFrom('"h"', '"/p"', "1", "-3", "true", "[]", "{}", '"none"', '"file"', '"kv"', "${UNSET_VAR}", `"\${${"V".repeat(300)}}"`, "${SCALAR}"),
  fc.integer({ min: 1, max: 5000 }).map((n) => `"${"x".repeat(n)}"`),
  fc.constantFrom('"\\u001b[31mred"', '"\\u009b2J"', '"\\u202eevil"', '"tab\\there"'),
  fc.string({ maxLength: 20 }).map((s) => JSON.stringify(s))
)

const plainLine = fc.oneof(
  { arbitrary: fc.tuple(fc.constantFrom("host", "http_path", "api_key", "destination_id", "type", "path", "tables", "backend", "file_root", "kv_ttl_seconds", "namespace", "name", "min_age_days", "effect", "capability"), plainValue).map(([k, v]) => `${k} = ${v}`), weight: 6 },
  { arbitrary: fc.tuple(key, plainValue).map(([k, v]) => `${k} = ${v}`), weight: 2 },
  { arbitrary: fc.integer({ min: 1, max: 150 }).map((n) => `${Array.from({ length: n }, () => "a").join(".")} = 1`), weight: 1 },
  { arbitrary: fc.integer({ min: 1, max: 40 }).map((n) => `deep = ${"[".repeat(n)}${"]".repeat(n)}`), weight: 1 },
  { arbitrary: fc.oneof(fc.string({ maxLength: 30 }), fc.constantFrom("[", "= 1", 'x = "unterminated')), weight: 1 },
  { arbitrary: fc.constantFrom("# a comment ${NOT_SET}", ""), weight: 1 }
)

/** The keys an adapter of each type needs, so most generated blocks fail only where the test aims. */
const required: Readonly<Record<string, ReadonlyArray<string>>> = {
  '"warehouse"': ['host = "h"', 'http_path = "/p"'],
  '"elt"': ['api_key = "k"', 'destination_id = "d"', 'api_secret = "s"'],
  '"embedded"': [],
  '"manual"': []
}

const adapterType = fc.constantFrom('"warehouse"', '"warehouse"', '"warehouse"', '"elt"', '"elt"', '"elt"', '"embedded"', '"manual"', '"bogus"', "3")
const adapterName = fc.constantFrom("wh", "e", "local", '"odd name"', "w2", "e2")

const secretField = fc.constantFrom("token", "client_secret", "api_secret")

/** The key a line assigns (first dotted part), so a block never assigns one twice. */
const keyOf = (line: string) => line.split(/[ .=]/)[0]!

/** Mostly a secret field the type has, so its type error (not an unknown key) is what gets reported. */
const secretFor = (type: string) =>
  fc.oneof(
    { arbitrary: type === '"warehouse"' ? fc.constantFrom("token", "client_secret") : type === '"elt"' ? fc.constant("api_secret") : secretField, weight: 4 },
    { arbitrary: secretField, weight: 1 }
  )

const adapterLines = (type: string) =>
  fc
    .tuple(
      fc.nat(19),
      secretFor(type).chain(secretAssignment),
      fc.oneof({ arbitrary: fc.constant(undefined), weight: 3 }, { arbitrary: plainLine, weight: 1 }),
      fc.oneof(
        { arbitrary: fc.constant(undefined), weight: 2 },
        { arbitrary: fc.array(fc.oneof(secretAssignment("kv_url"), plainLine), { maxLength: 2 }), weight: 1 }
      )
    )
    .map(([complete, secret, plain, cache]) => {
      const lines = [...(complete > 0 ? (required[type] ?? []) : []), ...(plain === undefined ? [] : [plain])]
      const body = [secret, ...lines.filter((line, i) => keyOf(line) !== keyOf(secret) && lines.findIndex((l) => keyOf(l) === keyOf(line)) === i)]
      return [...body, ...(cache === undefined ? [] : ["[cache]", ...cache.filter((line, i) => cache.findIndex((l) => keyOf(l) === keyOf(line)) === i)])]
    })

/** One block of a generated pcli.toml. */
const block = fc.oneof(
  {
    arbitrary: fc.tuple(adapterName, adapterType).chain(([name, type]) =>
      adapterLines(type).map((lines) => {
        const cache = lines.indexOf("[cache]")
        const body = cache === -1 ? lines : [...lines.slice(0, cache), `[adapter.${name}.cache]`, ...lines.slice(cache + 1)]
        return [`[adapter.${name}]`, `type = ${type}`, ...body].join("\n")
      })
    ),
    weight: 6
  },
  { arbitrary: fc.tuple(adapterName, secretField, secretValue).map(([name, field, value]) => `adapter.${name}.${field} = ${value}`), weight: 1 },
  {
    arbitrary: fc
      .tuple(adapterName, adapterType, secretField, secretValue)
      .map(([name, type, field, value]) => `[adapter]\n${name} = { type = ${type}, ${field} = ${value} }`),
    weight: 1
  },
  {
    arbitrary: fc
      .tuple(fc.constantFrom("[state]", "[policy]", "[gc]", "[project]", "[[policy.rules]]", "[mask]", "[classifications]"), fc.array(plainLine, { maxLength: 3 }))
      .map(([header, lines]) => [header, ...lines].join("\n")),
    weight: 1
  }
)

/** Random pcli.toml-like text: mostly almost-valid, with secret canaries in secret fields only. */
export const configText = fc.uniqueArray(block, { minLength: 1, maxLength: 3, selector: (b) => b.split(/[\]=]/)[0] }).map((blocks) => `${blocks.join("\n")}\n`)
