// The light entry of `pcli product verify` (dist/pcli-product-verify.cjs).
import { runVerify } from "../cli/product.run"
import { runLight } from "./main"

runLight("product verify", runVerify)
