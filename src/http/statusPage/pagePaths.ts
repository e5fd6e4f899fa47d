/** Where the status page is served. */
export const STATUS_PAGE_PATH = "/escalation";
/** How often the page re-reads the JSON. */
export const REFRESH_MS = 5000;
