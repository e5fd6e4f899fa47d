// An app module as it must not be: it imports the tools (see appWithoutTools.test.ts).
import type { SimComment } from "../../../../tools/simulator/index.js";

export type Seen = SimComment;
