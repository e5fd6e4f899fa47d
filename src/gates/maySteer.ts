import type { RepoSettings } from "../config/repoConfig.js";
import { meetsMinimum, permissionOf } from "../github/permissions.js";
import { isTeamMember } from "../github/teamMembership.js";
import type { InboundEvent } from "../payloads.js";
import type { Services } from "../services/services.js";

/**
 * Who may answer, dispatch or command: never a bot; a listed user or team member; or anyone with
 * at least the minimum permission (write by default). Everyone else is ignored without a reply.
 */
export async function maySteer(
  services: Pick<Services, "accessCache" | "config" | "github" | "log">,
  event: InboundEvent,
  login: string,
  type: string,
  settings: RepoSettings,
): Promise<boolean> {
  if (type === "Bot" || login.endsWith("[bot]")) {
    services.log.debug({ repo: event.repo, login }, "ignored: bots never steer");
    return false;
  }
  if (settings.answerers.users.includes(login.toLowerCase())) return true;
  const octokit = () => services.github.installation(event.installationId);
  for (const team of settings.answerers.teams) {
    if (await isTeamMember(octokit, services.accessCache, team, login, services.config.permissionCacheSeconds)) return true;
  }
  const level = await permissionOf(octokit, services.accessCache, event.repo, login, services.config.permissionCacheSeconds);
  const allowed = meetsMinimum(level, settings.answerers.minimumPermission);
  if (!allowed) services.log.debug({ repo: event.repo, login, permission: level }, "ignored: below the minimum permission"); // not "level": that is pino's own key
  return allowed;
}
