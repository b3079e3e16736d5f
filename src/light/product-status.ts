// The light entry of `pcli product status` (dist/pcli-product-status.cjs).
import { runStatus } from "../cli/product.run"
import { runLight } from "./main"

runLight("product status", runStatus)
