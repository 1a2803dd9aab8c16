import { readFile, writeFile } from 'node:fs/promises';
import { routeDocFiles, withRoutesBox } from './route-docs.ts';

/** `npm run route-docs`: redraws the routes box of README.md from the route table. */
for (const file of routeDocFiles) {
  const url = new URL(`../${file}`, import.meta.url);
  const text = await readFile(url, 'utf8');
  const next = withRoutesBox(text);
  if (next !== text) await writeFile(url, next);
  console.log(next === text ? `${file}: up to date` : `${file}: routes redrawn`);
}
