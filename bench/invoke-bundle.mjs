// Imports a built function bundle and invokes its handler with the JSON event in argv[3]; prints the result.
import { pathToFileURL } from 'node:url';

const { handler } = await import(pathToFileURL(process.argv[2]).href);
const context = { awsRequestId: 'bench', functionName: 'bench', getRemainingTimeInMillis: () => 10_000 };
const result = await handler(JSON.parse(process.argv[3]), context);
process.stdout.write(JSON.stringify(result));
