import { join } from 'node:path';
import { ESLint } from 'eslint';

/** The project's own lint configuration on a snippet, as if it were the file at `path`: the rules that fired. */
async function rulesFiredOn(path: string, code: string): Promise<string[]> {
  const root = join(__dirname, '..');
  // The configuration handed over as loaded, not found on disk: ESLint would import it dynamically, which Jest's VM refuses.
  const eslint = new ESLint({ cwd: root, overrideConfigFile: true, overrideConfig: require('../eslint.config.js') });
  const [result] = await eslint.lintText(code, { filePath: join(root, path) });
  return result.messages.map((message) => message.ruleId ?? message.message);
}

describe('lint: what a context takes from another context', () => {
  it('a controller may take another context’s request shapes (its …Query and …Body classes)', async () => {
    const code =
      "import { ContentReadQuery, WriteContentBody } from '#content';\nexport const shapes = [ContentReadQuery, WriteContentBody];\n";
    expect(await rulesFiredOn('libs/changerequests/src/example.controller.ts', code)).toEqual([]);
  });

  it('a controller may not take another value beside them', async () => {
    const code =
      "import { ContentReadQuery, ContentPresenter } from '#content';\nexport const values = [ContentReadQuery, ContentPresenter];\n";
    expect(await rulesFiredOn('libs/changerequests/src/example.controller.ts', code)).toEqual(['no-restricted-syntax']);
  });

  it('a controller may not take a whole context as a namespace', async () => {
    const code = "import * as content from '#content';\nexport const all = content;\n";
    expect(await rulesFiredOn('libs/changerequests/src/example.controller.ts', code)).toEqual(['no-restricted-syntax']);
  });

  it('a file that is not a controller takes only types, request shapes included', async () => {
    const code = "import { ContentReadQuery } from '#content';\nexport const shape = ContentReadQuery;\n";
    expect(await rulesFiredOn('libs/changerequests/src/example.commands.ts', code)).toEqual(['no-restricted-syntax']);
  });

  it('any file may take types', async () => {
    const code = "import type { ContentPresenter } from '#content';\nexport type Presenter = ContentPresenter;\n";
    expect(await rulesFiredOn('libs/changerequests/src/example.commands.ts', code)).toEqual([]);
  });
});
