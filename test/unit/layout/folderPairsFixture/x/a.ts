import type { B } from "../y/b.js";
export interface A {
  b?: B;
}
