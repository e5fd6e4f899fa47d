// A module as it must not be: it starts a program scripts/programs.txt does not list (see programs.test.ts).
import { spawn } from "node:child_process";

export const started = () => spawn("frobnicate", ["--now"], { stdio: "ignore" });
export const argv = { argv: ["/usr/bin/frobnicate-helper", "-x"] };
