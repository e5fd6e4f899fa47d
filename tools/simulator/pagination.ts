/** GitHub's page-number pagination: `per_page` (default 30, at most 100), `page`, and a Link header. */

export interface Page<T> {
  items: T[];
  /** Absent when everything fits on one page, as on GitHub. */
  link?: string;
}

const DEFAULT_PER_PAGE = 30;
const MAX_PER_PAGE = 100;

export function paginate<T>(items: readonly T[], url: URL): Page<T> {
  const perPage = Math.min(MAX_PER_PAGE, Math.max(1, positiveInt(url.searchParams.get("per_page")) ?? DEFAULT_PER_PAGE));
  const page = positiveInt(url.searchParams.get("page")) ?? 1;
  const last = Math.max(1, Math.ceil(items.length / perPage));
  const pageItems = items.slice((page - 1) * perPage, page * perPage);
  const rels: Array<[number, string]> = [];
  if (page > 1) rels.push([Math.min(page - 1, last), "prev"]);
  if (page < last) rels.push([page + 1, "next"], [last, "last"]);
  if (page > 1) rels.push([1, "first"]);
  if (rels.length === 0) return { items: pageItems };
  const link = rels
    .map(([n, rel]) => {
      const target = new URL(url);
      target.searchParams.set("page", String(n));
      return `<${target.href}>; rel="${rel}"`;
    })
    .join(", ");
  return { items: pageItems, link };
}

function positiveInt(value: string | null): number | undefined {
  if (value === null || !/^\d+$/.test(value)) return undefined;
  const n = Number(value);
  return n >= 1 ? n : undefined;
}
