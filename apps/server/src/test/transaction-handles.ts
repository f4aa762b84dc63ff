import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type * as TypeScript from 'typescript-api';

// TypeScript 6's compiler API (TypeScript 7, which builds the server, has no stable one yet), loaded
// as Node loads a CommonJS module (its named exports are not static).
const ts: typeof TypeScript = createRequire(import.meta.url)('typescript-api');

/**
 * Finds, with TypeScript's type checker, every use of an outer database handle inside a
 * transaction's body: in a callback given to a handle's `transaction`, any expression whose type is
 * a handle (`Db`, `Tx`, `Handle`) or an object holding one (a service's `deps`), reached from a name
 * or `this` declared outside the callback. Such a statement would run outside the transaction
 * (decision 0238 refuses it at run time; this finds it before).
 */
export function outerHandlesInTransactions(
  program: TypeScript.Program,
  fileNames: readonly string[],
): string[] {
  const checker = program.getTypeChecker();
  const found: string[] = [];
  for (const fileName of fileNames) {
    const source = program.getSourceFile(fileName);
    if (!source) throw new Error(`${fileName} is not in the program`);
    const visit = (node: TypeScript.Node): void => {
      const body = transactionBody(checker, node);
      if (body) found.push(...outerUses(checker, source, body));
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return [...new Set(found)].sort();
}

/** The callback of `handle.transaction(callback)`, when `node` is such a call. */
function transactionBody(
  checker: TypeScript.TypeChecker,
  node: TypeScript.Node,
): TypeScript.FunctionLikeDeclaration | undefined {
  if (!ts.isCallExpression(node) || !ts.isPropertyAccessExpression(node.expression)) return undefined;
  if (node.expression.name.text !== 'transaction') return undefined;
  const [callback] = node.arguments;
  if (!callback || !(ts.isArrowFunction(callback) || ts.isFunctionExpression(callback))) return undefined;
  return isHandle(checker, checker.getTypeAtLocation(node.expression.expression)) ? callback : undefined;
}

/** A database handle: an object with a `kind` of `'db'` or `'tx'` and a `transaction` (each member of a union). */
function isHandle(checker: TypeScript.TypeChecker, type: TypeScript.Type): boolean {
  if (type.isUnion()) return type.types.every((member) => isHandle(checker, member));
  const kind = type.getProperty('kind');
  if (!kind || !type.getProperty('transaction')) return false;
  const kindType = checker.getTypeOfSymbol(kind);
  return kindType.isStringLiteral() && (kindType.value === 'db' || kindType.value === 'tx');
}

/** A handle, or an object with a handle among its properties. */
function holdsHandle(checker: TypeScript.TypeChecker, type: TypeScript.Type, at: TypeScript.Node): boolean {
  if (isHandle(checker, type)) return true;
  if (type.getCallSignatures().length > 0) return false;
  return type
    .getProperties()
    .some((property) => isHandle(checker, checker.getTypeOfSymbolAtLocation(property, at)));
}

/** The uses inside `body` of handles from outside it, as `file:line: text`. */
function outerUses(
  checker: TypeScript.TypeChecker,
  source: TypeScript.SourceFile,
  body: TypeScript.FunctionLikeDeclaration,
): string[] {
  const uses: string[] = [];
  const inside = (declaration: TypeScript.Declaration) =>
    declaration.getSourceFile() === source && declaration.pos >= body.pos && declaration.end <= body.end;
  const visit = (node: TypeScript.Node): void => {
    if (isChainRoot(node) && declaredOutside(checker, node, inside)) {
      // The longest chain from this root (`deps.db.all`): a handle anywhere along it, or an object
      // holding one at its end (`helper(deps)`), is an outer handle.
      let chain: TypeScript.Node = node;
      let handle = isHandle(checker, checker.getTypeAtLocation(chain));
      while (ts.isPropertyAccessExpression(chain.parent) && chain.parent.expression === chain) {
        chain = chain.parent;
        handle ||= isHandle(checker, checker.getTypeAtLocation(chain));
      }
      if (handle || passesHandle(checker, chain)) {
        const { line } = source.getLineAndCharacterOfPosition(chain.getStart(source));
        uses.push(`${source.fileName}:${line + 1}: ${chain.getText(source)}`);
      }
    }
    ts.forEachChild(node, visit);
  };
  if (body.body) visit(body.body);
  return uses;
}

/**
 * `chain`, an object holding a handle, is passed on whole: not when it is spread into an object
 * literal that then sets each of those properties itself (`{ ...deps, db: tx }`), nor when it is an
 * argument whose parameter's type holds no handle (a helper taking `Pick<Deps, 'ids'>`).
 */
function passesHandle(checker: TypeScript.TypeChecker, chain: TypeScript.Node): boolean {
  const type = checker.getTypeAtLocation(chain);
  if (!holdsHandle(checker, type, chain)) return false;
  const parent = chain.parent;
  if (ts.isSpreadAssignment(parent) && ts.isObjectLiteralExpression(parent.parent)) {
    const later = parent.parent.properties.slice(parent.parent.properties.indexOf(parent) + 1);
    const set = new Set(later.flatMap((p) => (p.name && ts.isIdentifier(p.name) ? [p.name.text] : [])));
    return type
      .getProperties()
      .some((p) => isHandle(checker, checker.getTypeOfSymbolAtLocation(p, chain)) && !set.has(p.name));
  }
  if (ts.isCallExpression(parent) && ts.isExpression(chain) && parent.arguments.includes(chain)) {
    const parameter = checker.getContextualType(chain);
    return parameter === undefined || holdsHandle(checker, parameter, chain);
  }
  return true;
}

/** `this`, or a name used as a value (not a property's name, a declaration's name or a type). */
function isChainRoot(node: TypeScript.Node): boolean {
  if (node.kind === ts.SyntaxKind.ThisKeyword) return true;
  if (!ts.isIdentifier(node)) return false;
  const parent = node.parent;
  if (ts.isPropertyAccessExpression(parent) && parent.name === node) return false;
  if (ts.isPropertyAssignment(parent) && parent.name === node) return false;
  if (ts.isTypeReferenceNode(parent) || ts.isQualifiedName(parent)) return false;
  if ('name' in parent && parent.name === node && ts.isDeclarationStatement(parent)) return false;
  return ts.isExpression(node);
}

function declaredOutside(
  checker: TypeScript.TypeChecker,
  node: TypeScript.Node,
  inside: (declaration: TypeScript.Declaration) => boolean,
): boolean {
  if (node.kind === ts.SyntaxKind.ThisKeyword) return true;
  const symbol = checker.getSymbolAtLocation(node);
  const declarations = symbol?.declarations ?? [];
  return declarations.length > 0 && !declarations.some(inside);
}

/** A program over `fileNames` with the server's compiler options, and `extra` files held in memory. */
export function serverProgram(
  serverDir: string,
  fileNames: readonly string[],
  extra: ReadonlyMap<string, string> = new Map(),
): TypeScript.Program {
  const configPath = join(serverDir, 'tsconfig.json');
  const config = ts.readConfigFile(configPath, (path) => readFileSync(path, 'utf8'));
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, serverDir);
  const host = ts.createCompilerHost({ ...options, noEmit: true });
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.readFile = (path) => extra.get(path) ?? readFile(path);
  host.fileExists = (path) => extra.has(path) || fileExists(path);
  host.getSourceFile = (path, language, onError) => {
    const text = extra.get(path);
    return text === undefined
      ? getSourceFile(path, language, onError)
      : ts.createSourceFile(path, text, language);
  };
  return ts.createProgram({
    rootNames: [...fileNames, ...extra.keys()],
    options: { ...options, noEmit: true },
    host,
  });
}
