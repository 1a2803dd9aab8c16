// Prints how long importing one bundle takes in this fresh process (milliseconds).
import { pathToFileURL } from 'node:url';

const file = process.argv[2];
const started = performance.now();
await import(pathToFileURL(file).href);
process.stdout.write(`${(performance.now() - started).toFixed(3)}\n`);
