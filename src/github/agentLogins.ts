/**
 * Whether a login is one an agent posts as: the App's own bot (the agent's token acts as it) or an
 * `AGENT_LOGINS` account. GitHub logins are case-insensitive; AGENT_LOGINS is stored lower-cased.
 */
export function agentLogin(botLogin: string, agentLogins: readonly string[]): (login: string) => boolean {
  const bot = botLogin.toLowerCase();
  return (login) => {
    const lower = login.toLowerCase();
    return lower === bot || agentLogins.includes(lower);
  };
}
