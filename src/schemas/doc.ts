/**
 * A field's reference-doc annotations: what it means and an example (read by `pcli docs reference`).
 * Examples are values as a file spells them (the encoded side), so they are not typed as the decoded field.
 */
export const doc = (description: string, ...examples: ReadonlyArray<unknown>) =>
  examples.length === 0 ? { description } : { description, examples: examples as unknown as readonly [never, ...Array<never>] }
