import { Schema } from "effect"
import { brief } from "../commands/brief"
import { productStatus } from "../commands/productStatus"
import { BriefOutput } from "../schemas/brief"
import { ProductStatusOutput } from "../schemas/products"
import { defineTool } from "./tool"

/** Read tools over reports and data products. */
export const reportTools = [
  defineTool({
    name: "brief",
    description: "Digest of the review queue, agent activity, runs and scheduler posture over a window (same JSON as pcli brief; never advances the stored cursor)",
    readOnly: true,
    input: Schema.Struct({ since: Schema.optionalWith(Schema.Literal("24h", "7d"), { default: () => "7d" as const }) }),
    output: BriefOutput,
    // A window, never `last`: an agent's read must not move the cursor a person's digest reads from.
    run: ({ since }) => brief({ since })
  }),
  defineTool({
    name: "product_status",
    description: "A data product's spec identity, lowering phase, artifact verification, approval and fulfillment state (same JSON as pcli product status)",
    readOnly: true,
    input: Schema.Struct({ name: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(128)) }),
    output: ProductStatusOutput,
    run: ({ name }) => productStatus({ name })
  })
] as const
