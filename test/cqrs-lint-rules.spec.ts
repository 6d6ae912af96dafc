import { RuleTester } from 'eslint';
const tsParser = require('@typescript-eslint/parser');
const { rules } = require('../scripts/eslint/cqrs-rules.js');

const tester = new RuleTester({ languageOptions: { parser: tsParser, sourceType: 'module' } });

describe('lint: a command or query and its handler share one file', () => {
  tester.run('handler-beside-message', rules['handler-beside-message'], {
    valid: [
      `class DeleteSpace extends Command<void> {}
       @CommandHandler(DeleteSpace) class DeleteSpaceHandler {}`,
      `class GetSpace extends Query<object> {}
       @QueryHandler(GetSpace) class GetSpaceHandler {}`,
    ],
    invalid: [
      {
        code: `import { DeleteSpace } from './space.commands';\n@CommandHandler(DeleteSpace) class DeleteSpaceHandler {}`,
        errors: [{ messageId: 'elsewhere' }],
      },
      { code: `class DeleteSpace extends Command<void> {}`, errors: [{ messageId: 'unhandled' }] },
      { code: `class GetSpace extends Query<object> {}`, errors: [{ messageId: 'unhandled' }] },
      {
        code: `class GetSpace extends Query<object> {}\n@CommandHandler(GetSpace) class GetSpaceHandler {}`,
        errors: [{ messageId: 'unhandled' }, { messageId: 'elsewhere' }],
      },
    ],
  });
});

describe('lint: a controller takes only the buses', () => {
  tester.run('controller-buses-only', rules['controller-buses-only'], {
    valid: [
      `class SpaceController { constructor(private readonly commandBus: CommandBus, private readonly queryBus: QueryBus) {} }`,
      `class HealthController {}`,
    ],
    invalid: [
      { code: `class SpaceController { constructor(private readonly commands: SpaceCommands) {} }`, errors: [{ messageId: 'other' }] },
      {
        code: `class SpaceController { constructor(private readonly queryBus: QueryBus, @Inject(READ_STORE) reads: ReadStore) {} }`,
        errors: [{ messageId: 'other' }],
      },
    ],
  });
});
