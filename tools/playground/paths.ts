/**
 * Where the playground's pages are. The pages of issues are where the simulator's html_url links
 * point (`/{owner}/{repo}/issues/{n}`, `/pull/{n}` too), so links on the status page and in the
 * bot's comments open them; the playground's own routes are under /-/playground/.
 */
const OWN = "/-/playground";

export const paths = {
  home: "/",
  issueList: (repo: string) => `/${repo}/issues`,
  issue: (repo: string, n: number) => `/${repo}/issues/${n}`,
  liveList: (repo: string) => `${OWN}/live/${repo}`,
  liveIssue: (repo: string, n: number) => `${OWN}/live/${repo}/${n}`,
  newIssue: (repo: string) => `${OWN}/${repo}/issues`,
  act: (repo: string, n: number) => `${OWN}/${repo}/issues/${n}`,
  script: `${OWN}/page.js`,
};

const NAME = "([A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)";

/** The playground's routes, matched against a request's path. */
export const ROUTES = {
  issueList: new RegExp(`^/${NAME}/issues/?$`),
  issue: new RegExp(`^/${NAME}/(?:issues|pull)/(\\d{1,9})/?$`),
  liveList: new RegExp(`^${OWN}/live/${NAME}$`),
  liveIssue: new RegExp(`^${OWN}/live/${NAME}/(\\d{1,9})$`),
  newIssue: new RegExp(`^${OWN}/${NAME}/issues$`),
  act: new RegExp(`^${OWN}/${NAME}/issues/(\\d{1,9})$`),
};
