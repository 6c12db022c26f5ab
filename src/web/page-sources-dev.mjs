// The web page's modules when Dossier runs from its TypeScript sources (tests, development): the
// browser gets them with their types stripped by the TypeScript compiler, a dev dependency like
// tsx. Built code (dist/) serves tsc's output and never loads this file, which is not shipped.
import ts from 'typescript';

/** The JavaScript tsc would emit for `source`, its `.ts` imports rewritten to `.js`. */
export function stripTypes(source, fileName) {
  const compilerOptions = { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, rewriteRelativeImportExtensions: true };
  return ts.transpileModule(source, { fileName, compilerOptions }).outputText;
}
