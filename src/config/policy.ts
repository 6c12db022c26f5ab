import { existsSync, readFileSync } from 'node:fs';
import { z } from 'zod';
import { DossierError } from '../errors/index.ts';

/**
 * The policy file (`dossier.config.json`, or `--config FILE` / DOSSIER_CONFIG): which tools each
 * mode and each collection may use, and which questions must wait for a person's approval before
 * their answer is shown. Documented in docs/research.md.
 *
 * {
 *   "permissions": {
 *     "modes": { "research": { "deny": ["web_search", "web_scrape"] } },
 *     "collections": { "hr": { "deny": ["python", "web_search", "web_scrape"] } }
 *   },
 *   "approval": { "patterns": ["\\bsalar(y|ies)\\b", "wire transfer"], "modes": ["research"] }
 * }
 */
const toolRule = z
  .object({
    /** Only these tools (names); absent = every tool. */
    allow: z.array(z.string()).optional(),
    /** Never these tools. */
    deny: z.array(z.string()).optional(),
  })
  .strict();

const policySchema = z
  .object({
    permissions: z
      .object({
        modes: z.object({ rag: toolRule.optional(), research: toolRule.optional() }).strict().optional(),
        collections: z.record(z.string(), toolRule).optional(),
      })
      .strict()
      .optional(),
    approval: z
      .object({
        /** Regular expressions (case-insensitive) over the question. */
        patterns: z.array(z.string()).min(1),
        /** Modes the approval applies to (default both). */
        modes: z.array(z.enum(['rag', 'research'])).optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

export type PolicyFile = z.infer<typeof policySchema>;
type ToolRule = z.infer<typeof toolRule>;

export const DEFAULT_POLICY_FILE = 'dossier.config.json';

export class Policy {
  private readonly patterns: Array<{ source: string; regex: RegExp }>;

  constructor(
    readonly file: PolicyFile = {},
    readonly path?: string,
  ) {
    this.patterns = (file.approval?.patterns ?? []).map((source) => {
      try {
        return { source, regex: new RegExp(source, 'i') };
      } catch (error) {
        throw new DossierError(
          'config',
          `${path ?? 'policy'}: approval pattern "${source}" is not a valid regular expression (${(error as Error).message})`,
        );
      }
    });
  }

  /** Whether a tool may run in this mode over these collections ('*' = every collection). */
  allowTool(name: string, mode: 'rag' | 'research', collections: readonly string[] | '*'): boolean {
    const rules: ToolRule[] = [];
    const modeRule = this.file.permissions?.modes?.[mode];
    if (modeRule) rules.push(modeRule);
    const byCollection = this.file.permissions?.collections ?? {};
    const names = collections === '*' ? Object.keys(byCollection) : collections;
    for (const collection of names) if (byCollection[collection]) rules.push(byCollection[collection]);
    return rules.every((rule) => (!rule.allow || rule.allow.includes(name)) && !rule.deny?.includes(name));
  }

  /** Why this question's answer must wait for approval, or undefined when it need not. */
  approvalReason(question: string, mode: 'rag' | 'research'): string | undefined {
    const modes = this.file.approval?.modes;
    if (modes && !modes.includes(mode)) return undefined;
    const hit = this.patterns.find((pattern) => pattern.regex.test(question));
    return hit ? `the question matches the high-risk pattern /${hit.source}/` : undefined;
  }
}

/**
 * The policy from a file: the one named (it must exist), else `dossier.config.json` in the working
 * folder when there is one, else the open default (every tool, no approval).
 */
export function loadPolicy(path?: string, cwd = process.cwd()): Policy {
  const file = path ?? (existsSync(`${cwd}/${DEFAULT_POLICY_FILE}`) ? `${cwd}/${DEFAULT_POLICY_FILE}` : undefined);
  if (!file) return new Policy();
  if (!existsSync(file)) throw new DossierError('config', `policy file not found: ${file}`);
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new DossierError('config', `${file} is not valid JSON: ${(error as Error).message}`);
  }
  const parsed = policySchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new DossierError('config', `${file}: ${issue.path.join('.') || 'top level'}: ${issue.message}`);
  }
  return new Policy(parsed.data, file);
}
