import { describe, expect, it } from "vitest";
import {
  APP_DIR,
  EGRESS_DIR,
  holderArgs,
  roundArgs,
  SANDBOX_HOME,
  sandboxArgs,
  type RoundMounts,
  type RoundNetwork,
  type SandboxLayout,
} from "../../../src/sandbox/bwrapArgs.js";

const layout = (over: Partial<SandboxLayout> = {}): SandboxLayout => ({
  system: [{ path: "/usr" }, { path: "/bin", symlink: "usr/bin" }, { path: "/lib64" }],
  etc: ["/etc/passwd", "/etc/ssl"],
  extra: ["/opt/node"],
  app: { root: "/srv/app", entries: ["bin", "dist", "node_modules", "package.json"] },
  asRoot: false,
  ...over,
});
/** Every argument bwrap parses for a round: the round's own read where `--args` stands. */
function bwrapArgs(l: SandboxLayout, r: RoundMounts & { network: RoundNetwork }): string[] {
  const fixed = sandboxArgs(l, r.network, 4);
  const at = fixed.indexOf("--args");
  expect(fixed.slice(at, at + 2)).toEqual(["--args", "4"]);
  return [...fixed.slice(0, at), ...roundArgs(r), ...fixed.slice(at + 2)];
}

const round = { workdir: "/tmp/escalation-x", readOnly: ["/data/ws/task.md", "/data/ws/cache/o/r.git/objects"], network: "none" as const };

/** The (source, destination) pairs of every bind of `kind`. */
function binds(args: string[], kind: string): Array<[string, string]> {
  return args.flatMap((arg, i) => (arg === kind ? [[args[i + 1]!, args[i + 2]!] as [string, string]] : []));
}

describe("bwrapArgs", () => {
  it("gives the agent its own pid, network, ipc and uts namespaces and /proc, /dev, a private /tmp and home", () => {
    const args = bwrapArgs(layout(), round);
    for (const flag of ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts"]) expect(args).toContain(flag);
    expect(args.join(" ")).toContain("--proc /proc --dev /dev --tmpfs /tmp --tmpfs " + SANDBOX_HOME);
  });

  it("binds system directories read-only and recreates merged-/usr symlinks", () => {
    const args = bwrapArgs(layout(), round);
    expect(binds(args, "--ro-bind")).toEqual(
      expect.arrayContaining([
        ["/usr", "/usr"],
        ["/lib64", "/lib64"],
        ["/opt/node", "/opt/node"],
      ]),
    );
    expect(binds(args, "--symlink")).toEqual([["usr/bin", "/bin"]]);
    expect(binds(args, "--ro-bind-try")).toEqual([
      ["/etc/passwd", "/etc/passwd"],
      ["/etc/ssl", "/etc/ssl"],
    ]);
  });

  it("shows the app's code only at APP_DIR, never the app's directory itself", () => {
    const all = [...binds(bwrapArgs(layout(), round), "--ro-bind"), ...binds(bwrapArgs(layout(), round), "--bind")];
    const fromApp = all.filter(([source]) => source.startsWith("/srv/app"));
    expect(fromApp).toEqual(["bin", "dist", "node_modules", "package.json"].map((e) => [`/srv/app/${e}`, `${APP_DIR}/${e}`]));
    expect(all.some(([source]) => source === "/srv/app")).toBe(false);
  });

  it("binds the round's workdir read-write and its other paths read-only at their own paths, after /tmp", () => {
    const args = bwrapArgs(layout(), round);
    expect(binds(args, "--bind")).toEqual([["/tmp/escalation-x", "/tmp/escalation-x"]]);
    expect(binds(args, "--ro-bind")).toEqual(expect.arrayContaining(round.readOnly.map((p) => [p, p])));
    expect(args.indexOf("--bind")).toBeGreaterThan(args.indexOf("/tmp"));
    // Extra paths too come after the private /tmp and home, which would hide one below them.
    expect(args.indexOf("/opt/node")).toBeGreaterThan(args.indexOf(SANDBOX_HOME));
    expect(args.slice(-4)).toEqual(["--chdir", "/tmp/escalation-x", "--remount-ro", "/"]);
  });

  it("drops every capability as root and takes a user namespace otherwise", () => {
    expect(bwrapArgs(layout({ asRoot: true }), round).join(" ")).toContain("--cap-drop ALL");
    expect(bwrapArgs(layout({ asRoot: true }), round)).not.toContain("--unshare-user");
    expect(bwrapArgs(layout(), round)).toContain("--unshare-user");
    expect(bwrapArgs(layout(), round)).not.toContain("--cap-drop");
  });

  it("joining a warm network namespace, makes no network of its own and never shows the egress sockets", () => {
    const joined = bwrapArgs(layout(), { ...round, network: "joined" });
    expect(joined).not.toContain("--unshare-net");
    for (const flag of ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-user"]) expect(joined).toContain(flag);
    expect(joined.join(" ")).not.toContain(EGRESS_DIR);
    expect(bwrapArgs(layout(), round).join(" ")).not.toContain(EGRESS_DIR);
  });

  it("keeps the sandbox in the app's process group (no new session, no death signal that would skip the kill grace)", () => {
    const args = bwrapArgs(layout(), round);
    expect(args).not.toContain("--new-session");
    expect(args).not.toContain("--die-with-parent");
  });

  it("is started before its round: what is known ahead names none of the round's paths, which come before the root is made read-only", () => {
    const ahead = sandboxArgs(layout(), "joined", 4).join(" ");
    for (const path of [round.workdir, ...round.readOnly]) expect(ahead).not.toContain(path);
    expect(sandboxArgs(layout(), "joined", 4).slice(-4)).toEqual(["--args", "4", "--remount-ro", "/"]);
  });
});

describe("holderArgs", () => {
  it("gives the holder its own network with the egress sockets read-only at EGRESS_DIR, /usr, /dev/null and nothing of the app", () => {
    const args = holderArgs(layout(), "/data/egress");
    for (const flag of ["--unshare-net", "--unshare-pid", "--unshare-user", "--die-with-parent"]) expect(args).toContain(flag);
    expect(binds(args, "--ro-bind")).toEqual([
      ["/usr", "/usr"],
      ["/lib64", "/lib64"],
      ["/data/egress", EGRESS_DIR],
    ]);
    expect(binds(args, "--dev-bind")).toEqual([["/dev/null", "/dev/null"]]);
    // --dev would nest a second user namespace, which would own no network a round could enter.
    expect(args).not.toContain("--dev");
    expect(args.join(" ")).not.toContain("/srv/app");
    expect(args.slice(-2)).toEqual(["--remount-ro", "/"]);
    // Every capability dropped but binding a low port (a loopback GitHub on port 80).
    expect(holderArgs(layout({ asRoot: true }), "/e").join(" ")).toContain("--cap-drop ALL --cap-add CAP_NET_BIND_SERVICE");
    expect(args.join(" ")).toContain("--unshare-user --cap-add CAP_NET_BIND_SERVICE");
  });
});
