// Fails fast when a project script runs on a Node.js older than 24 (the Lambda runtime we target).
// Plain JavaScript on purpose: it must run on whatever `node` is first on the PATH.
const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  console.error(
    `This project needs Node.js 24 or newer; this is ${process.version}. ` +
      'Run scripts through npm (npm start, npm test), which uses the pinned node devDependency installed by `npm ci`.',
  );
  process.exit(1);
}
