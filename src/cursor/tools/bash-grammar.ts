// The tree-sitter runtime with the Bash grammar. Both are WebAssembly modules that
// wrangler bundles as compiled modules (a Worker may not compile WebAssembly from
// bytes at run time), so they are instantiated here rather than fetched.
import bashWasm from "tree-sitter-bash/tree-sitter-bash.wasm";
import { Language, Parser } from "web-tree-sitter";
import runtimeWasm from "web-tree-sitter/web-tree-sitter.wasm";

type Instantiated = (instance: WebAssembly.Instance, module: WebAssembly.Module) => void;

export async function createBashParser(): Promise<Parser> {
  await Parser.init({
    instantiateWasm(imports: WebAssembly.Imports, done: Instantiated) {
      const instance = new WebAssembly.Instance(runtimeWasm, imports);
      done(instance, runtimeWasm);
      return instance.exports;
    },
  });
  const parser = new Parser();
  parser.setLanguage(Language.loadSync(bashWasm));
  return parser;
}
