// The `workerd` package has no types. Its CommonJS exports are `{ default: binaryPath, … }`, which
// Node's ESM gives as the default import; a bundler's interop gives `binaryPath` itself.
declare module "workerd" {
  const exports: string | { default: string };
  export default exports;
}
