import { verify, type KeyObject } from "node:crypto";
import { accessRank, type Actor, type Grant } from "./access.js";
import { ApiError, notFound } from "./errors.js";
import type { AppInfo } from "./payloads.js";
import { randomToken, type Repo, type SimState } from "./state.js";

/** Routes under /app take the app's JWT; every other route takes an installation or personal token. */
export type RouteAuth = "jwt" | "token";

export interface IssuedToken {
  token: string;
  expiresAt: Date;
  grant: Grant;
  /** Present when the request narrowed the token to some repositories. */
  repositories?: Repo[];
}

const TOKEN_LIFETIME_MS = 60 * 60 * 1000;
const MAX_JWT_LIFETIME_S = 10 * 60;
/** GitHub tolerates small clock differences; octokit backdates `iat` by 30 s for the same reason. */
const CLOCK_SKEW_S = 60;

const JWT_UNDECODABLE = "A JSON web token could not be decoded";

export class Authenticator {
  private readonly installationTokens = new Map<string, { grant: Grant; expiresAt: number }>();

  constructor(
    private readonly state: SimState,
    private readonly publicKey: KeyObject,
    private readonly appInfo: AppInfo,
  ) {}

  authenticate(header: string | undefined, kind: RouteAuth): Actor {
    if (!header) throw new ApiError(401, "Requires authentication");
    const credential = /^(?:bearer|token)\s+(\S+)$/i.exec(header.trim())?.[1];
    if (kind === "jwt") {
      this.verifyJwt(credential ?? "");
      return { kind: "app" };
    }
    if (credential === undefined) throw new ApiError(401, "Bad credentials");
    const installation = this.installationTokens.get(credential);
    if (installation) {
      if (installation.expiresAt <= Date.now()) throw new ApiError(401, "Bad credentials");
      return { kind: "installation", account: this.state.bot, grant: installation.grant };
    }
    const user = this.state.accountByToken(credential);
    if (!user) throw new ApiError(401, "Bad credentials");
    return { kind: "user", account: user };
  }

  /** Mints a token like `POST /app/installations/{id}/access_tokens`, optionally narrowed to repositories and permissions. */
  issueToken(installationId: number, request: unknown): IssuedToken {
    const installation = this.state.findInstallation(installationId);
    if (!installation) throw notFound();
    const body = (request ?? {}) as { repositories?: unknown; repository_ids?: unknown; permissions?: unknown };
    const repositories = this.selectRepositories(installationId, body.repositories, body.repository_ids);
    const permissions = this.selectPermissions(body.permissions);
    const grant: Grant = {
      installationId,
      permissions,
      ...(repositories ? { repositoryIds: new Set(repositories.map((r) => r.id)) } : {}),
    };
    const token = randomToken("ghs_");
    const expiresAt = new Date(Date.now() + TOKEN_LIFETIME_MS);
    this.installationTokens.set(token, { grant, expiresAt: expiresAt.getTime() });
    return { token, expiresAt, grant, ...(repositories ? { repositories } : {}) };
  }

  /** `DELETE /installation/token`: the token that authenticated `actor` is refused from now on, by the API and by git. */
  revoke(grant: Grant): void {
    for (const [token, issued] of this.installationTokens) if (issued.grant === grant) this.installationTokens.delete(token);
  }

  private selectRepositories(installationId: number, names: unknown, ids: unknown): Repo[] | undefined {
    if (names === undefined && ids === undefined) return undefined;
    const nameList = names ?? [];
    const idList = ids ?? [];
    if (!isArrayOf(nameList, "string") || !isArrayOf(idList, "number")) {
      throw new ApiError(422, "Invalid request.\n\n`repositories` must be an array of names and `repository_ids` an array of ids.");
    }
    const installed = this.state.reposOfInstallation(installationId);
    const wanted = [
      ...nameList.map((name) => installed.find((r) => r.name.toLowerCase() === String(name).toLowerCase())),
      ...idList.map((id) => installed.find((r) => r.id === id)),
    ];
    if (wanted.some((r) => r === undefined)) {
      throw new ApiError(422, "There is at least one repository that does not exist or is not accessible to the parent installation.");
    }
    return [...new Set(wanted as Repo[])];
  }

  private selectPermissions(requested: unknown): Record<string, string> {
    if (requested === undefined) return { ...this.appInfo.permissions };
    if (typeof requested !== "object" || requested === null || Array.isArray(requested)) {
      throw new ApiError(422, "Invalid request.\n\n`permissions` must be an object.");
    }
    const granted: Record<string, string> = { metadata: "read" };
    for (const [name, level] of Object.entries(requested)) {
      if (typeof level !== "string" || accessRank(level) === 0 || accessRank(level) > accessRank(this.appInfo.permissions[name])) {
        throw new ApiError(422, "The permissions requested are not granted to this installation.");
      }
      granted[name] = level;
    }
    return granted;
  }

  /** RS256 only, signed by the app's key, issued by this app, unexpired and at most ten minutes long, as GitHub requires. */
  private verifyJwt(jwt: string): void {
    const [headerPart, payloadPart, signaturePart, ...extra] = jwt.split(".");
    if (headerPart === undefined || payloadPart === undefined || signaturePart === undefined || extra.length > 0) {
      throw new ApiError(401, JWT_UNDECODABLE);
    }
    const header = decodeJson(headerPart) as { alg?: unknown } | undefined;
    const payload = decodeJson(payloadPart) as { iss?: unknown; exp?: unknown; iat?: unknown } | undefined;
    const signed = signatureValid(`${headerPart}.${payloadPart}`, signaturePart, this.publicKey);
    if (header?.alg !== "RS256" || !payload || !signed || String(payload.iss) !== String(this.appInfo.id)) {
      throw new ApiError(401, JWT_UNDECODABLE);
    }
    const now = Math.floor(Date.now() / 1000);
    // These messages are GitHub's; @octokit/auth-app recognises them and retries with the server's clock.
    if (typeof payload.exp !== "number" || payload.exp <= now) {
      throw new ApiError(401, "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires");
    }
    if (payload.exp > now + MAX_JWT_LIFETIME_S + CLOCK_SKEW_S) {
      throw new ApiError(401, "'Expiration time' claim ('exp') is too far in the future");
    }
    if (typeof payload.iat !== "number" || payload.iat > now + CLOCK_SKEW_S) {
      throw new ApiError(401, "'Issued at' claim ('iat') must be an Integer representing the time that the assertion was issued");
    }
  }
}

function decodeJson(part: string): unknown {
  try {
    return JSON.parse(Buffer.from(part, "base64url").toString("utf8"));
  } catch {
    return undefined;
  }
}

function isArrayOf(value: unknown, type: "string" | "number"): value is unknown[] {
  return Array.isArray(value) && value.every((item) => typeof item === type);
}

function signatureValid(data: string, signature: string, key: KeyObject): boolean {
  try {
    return verify("RSA-SHA256", Buffer.from(data), key, Buffer.from(signature, "base64url"));
  } catch {
    return false;
  }
}
