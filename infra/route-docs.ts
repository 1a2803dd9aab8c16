import { type Route, routes } from '../shared/routes.ts';

/**
 * The drawing of the routes in README.md (docs/ecosystem.md links to it), generated from the route table:
 * one box per resource (the path's first named segment under `/v2`, or under
 * `/v2/customers/{customer}`), its routes' ids in table order. `npm run route-docs` writes them;
 * test/docs-drift.test.ts fails while a file differs from what this generates.
 */

/** The documents that draw the routes box. */
export const routeDocFiles = ['README.md'] as const;

/** The resource a route belongs to: `domains`, `ssl`, `processes`, `notifications`, ... */
export function resourceOf(route: Pick<Route, 'path'>): string {
  const parts = route.path.split('/').filter(Boolean).slice(1);
  const rest = parts[0] === 'customers' && parts[1] === '{customer}' && parts.length > 2 ? parts.slice(2) : parts;
  return (rest[0] ?? '').replace(/\.json$/, '');
}

/** Route ids joined into lines of at most `width` characters, as mermaid labels break them. */
function wrap(ids: string[], width = 48): string {
  const lines: string[] = [];
  for (const id of ids) {
    const last = lines.at(-1);
    if (last !== undefined && last.length + id.length + 2 <= width) lines[lines.length - 1] = `${last}, ${id}`;
    else lines.push(id);
  }
  return lines.join(',<br/>');
}

/** The box's node lines, indented as the diagrams hold them. */
export function routesBoxLines(indent = '      '): string[] {
  const groups = new Map<string, string[]>();
  for (const route of routes) {
    const key = resourceOf(route);
    groups.set(key, [...(groups.get(key) ?? []), route.auth === false ? `${route.id} (no auth)` : route.id]);
  }
  return [...groups].map(([resource, ids], i) => `${indent}r${i + 1}["${resource}: ${wrap(ids)}"]`);
}

/**
 * Where the routes box's node lines stand: from the line after `subgraph routesbox[...]` to the
 * newline before its `end` line. Found by lines, not a regular expression (no backtracking).
 */
function routesBoxSpan(text: string): { start: number; end: number } | undefined {
  const open = text.indexOf('subgraph routesbox[');
  if (open < 0) return undefined;
  const start = text.indexOf('\n', open) + 1;
  if (start === 0) return undefined;
  for (let at = start; at < text.length; ) {
    const next = text.indexOf('\n', at);
    if (next < 0) return undefined;
    if (text.slice(at, next).trim() === 'end') return at > start ? { start, end: at - 1 } : undefined;
    at = next + 1;
  }
  return undefined;
}

/** The text with its routes box replaced by the generated one (unchanged where it has none). */
export function withRoutesBox(text: string): string {
  const span = routesBoxSpan(text);
  if (!span) return text;
  const indent = /^(\s*)/.exec(text.slice(span.start, span.end))?.[1] ?? '      ';
  return `${text.slice(0, span.start)}${routesBoxLines(indent).join('\n')}${text.slice(span.end)}`;
}

/** The routes box's node lines in a document, or undefined where it draws none. */
export function drawnRoutesBox(text: string): string | undefined {
  const span = routesBoxSpan(text);
  return span && text.slice(span.start, span.end);
}
