import type { A } from "../x/a.js";
export interface C {
  a?: A;
}
