import { readdir } from 'node:fs/promises';
import { extname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DossierError } from '../../errors/index.ts';
import { getContent } from './get-content.ts';
import { searchDescriptions } from './search-descriptions.ts';
import { searchGraph } from './search-graph.ts';
import { searchKnowledge } from './search-knowledge.ts';
import type { AgentTool, RunToolContext } from './tool.ts';

const TOOL_NAME = /^[a-z][a-z0-9_]{0,63}$/;

/** The tools a run may use, by name. Unknown names are the model's mistake, answered as an error result. */
export class ToolRegistry {
  private readonly tools = new Map<string, AgentTool>();

  constructor(tools: readonly AgentTool[] = []) {
    for (const tool of tools) this.add(tool);
  }

  add(tool: AgentTool): void {
    if (!TOOL_NAME.test(tool.name)) throw new DossierError('bad-input', `tool name "${tool.name}" must be lower_snake_case`);
    if (this.tools.has(tool.name)) throw new DossierError('bad-input', `tool "${tool.name}" is defined twice`);
    this.tools.set(tool.name, tool);
  }

  get(name: string): AgentTool | undefined {
    return this.tools.get(name);
  }

  list(): AgentTool[] {
    return [...this.tools.values()];
  }

  names(): string[] {
    return [...this.tools.keys()];
  }

  /** The tools as one run offers them (each tool's `forRun`, when it has one); a tool whose `forRun` gives none is not offered. */
  async forRun(run: RunToolContext): Promise<ToolRegistry> {
    const offered = await Promise.all(this.list().map((tool) => (tool.forRun ? tool.forRun(run) : tool)));
    return new ToolRegistry(offered.filter((tool): tool is AgentTool => tool !== undefined));
  }
}

/** The RAG mode's built-in tools (search_graph only in a run whose scope has a knowledge graph). */
export function ragTools(): AgentTool[] {
  return [searchKnowledge, searchDescriptions, getContent, searchGraph];
}

/**
 * User tools: every .ts/.js/.mjs file in the folder default-exports one AgentTool
 * ({ name, description, inputSchema: zod schema, execute(input, context) }).
 */
export async function loadUserTools(directory: string): Promise<AgentTool[]> {
  const folder = resolve(directory);
  const names = await readdir(folder).catch(() => {
    throw new DossierError('bad-input', `tools folder not found: ${directory}`);
  });
  const tools: AgentTool[] = [];
  for (const name of names.sort()) {
    if (!['.ts', '.js', '.mjs'].includes(extname(name)) || name.endsWith('.d.ts') || name.includes('.test.')) continue;
    const path = join(folder, name);
    let module: { default?: unknown };
    try {
      module = (await importToolFile(path)) as { default?: unknown };
    } catch (error) {
      if (DossierError.isInstance(error)) throw error;
      throw new DossierError('bad-input', `tool file ${name} failed to load: ${(error as Error).message}`);
    }
    const tool = module.default as Partial<AgentTool> | undefined;
    const problems = [
      typeof tool?.name !== 'string' && 'a name',
      typeof tool?.description !== 'string' && 'a description',
      typeof (tool?.inputSchema as { safeParse?: unknown } | undefined)?.safeParse !== 'function' && 'a zod inputSchema',
      typeof tool?.execute !== 'function' && 'an execute function',
    ].filter(Boolean);
    if (problems.length) throw new DossierError('bad-input', `tool file ${name} must default-export a tool with ${problems.join(', ')}`);
    tools.push(tool as AgentTool);
  }
  return tools;
}

let typeScriptLoader: Promise<boolean> | undefined;

/**
 * Node 20 cannot import .ts files by itself. When a TypeScript tool file fails for that reason, the
 * tsx loader is registered if it is installed (it is a dev dependency of Dossier, not a dependency);
 * otherwise the error says how to fix it.
 */
async function importToolFile(path: string): Promise<unknown> {
  const url = pathToFileURL(path).href;
  try {
    return await import(url);
  } catch (error) {
    if ((error as { code?: string }).code !== 'ERR_UNKNOWN_FILE_EXTENSION' || extname(path) !== '.ts') throw error;
    typeScriptLoader ??= import('tsx/esm/api').then(
      (tsx) => (tsx.register(), true),
      () => false,
    );
    if (!(await typeScriptLoader)) {
      throw new DossierError(
        'bad-input',
        `tool file ${path} is TypeScript, which Node ${process.versions.node} cannot load: install tsx beside Dossier (npm install tsx) or compile the tool to .js`,
      );
    }
    return import(`${url}?typescript`);
  }
}
