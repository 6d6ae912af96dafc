import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Test, type TestingModule } from '@nestjs/testing';
import { Command, CommandBus, CommandHandler, EventsHandler, type IEventHandler } from '@nestjs/cqrs';
import type { Decider, DomainEvent } from '#event-store/decider';
import { DomainError } from '#platform/errors';
import { systemClock } from '#platform/clock';
import { loadConfig } from '#platform/config';
import type { Caller } from '#platform/http/auth';
import { DecidingHandler } from './command-handler';
import { EventCommitted } from './committed-events';
import { createRuntime, RuntimeModule, type Runtime } from './runtime.module';
import { openStores, type Stores } from './stores';

type NoteEvent = DomainEvent<'NoteWritten', { text: string }>;
const noteDecider: Decider<{ text: string }, NoteEvent, { texts: string[] }> = {
  initialState: () => ({ texts: [] }),
  evolve: (state, event) => ({ texts: [...state.texts, event.data.text] }),
  decide: (command) =>
    command.text === '' ? DomainError.invalid('a note needs text') : [{ type: 'NoteWritten', data: { text: command.text } }],
};

class WriteNote extends Command<number | null> {
  constructor(
    readonly text: string,
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {
    super();
  }
}

@CommandHandler(WriteNote)
class WriteNoteHandler extends DecidingHandler {
  async execute({ text, caller, ifMatch }: WriteNote): Promise<number | null> {
    return (await this.decide('note-n1', noteDecider, { text }, { caller, ifMatch })).revision;
  }
}

const heard: EventCommitted[] = [];
@EventsHandler(EventCommitted)
class CommittedListener implements IEventHandler<EventCommitted> {
  handle(event: EventCommitted): void {
    heard.push(event);
  }
}

const caller: Caller = { kind: 'system', id: 'spec', label: 'spec' };

describe('the command path: CommandBus → DecidingHandler → command runner → EventBus', () => {
  let directory: string;
  let stores: Stores;
  let runtime: Runtime;
  let module: TestingModule;
  let bus: CommandBus;

  beforeEach(async () => {
    heard.length = 0;
    directory = mkdtempSync(join(tmpdir(), 'command-handler-'));
    const config = loadConfig({ DATA_DIR: directory, HOST: '127.0.0.1', LOG_LEVEL: 'silent' });
    stores = await openStores(config);
    runtime = createRuntime({ config, stores, clock: systemClock, projections: [], runProjections: true });
    await runtime.runner!.start();
    module = await Test.createTestingModule({
      imports: [RuntimeModule.forRuntime(runtime)],
      providers: [WriteNoteHandler, CommittedListener],
    }).compile();
    await module.init();
    bus = module.get(CommandBus);
  });

  afterEach(async () => {
    await module.close();
    await runtime.runner!.stop();
    await runtime.work.close?.();
    await stores.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('given a command on the bus, then its handler decides and appends, stamping who asked', async () => {
    expect(await bus.execute(new WriteNote('first', caller))).toBe(0);
    const [event] = await stores.events.readStream('note-n1');
    expect(event).toMatchObject({ type: 'NoteWritten', data: { text: 'first' }, metadata: { actor: { id: 'spec' }, source: 'api' } });
  });

  it('given a stale If-Match, then the command is refused with 412 and nothing is appended', async () => {
    await bus.execute(new WriteNote('first', caller));
    await expect(bus.execute(new WriteNote('second', caller, 5))).rejects.toMatchObject({ status: 412 });
    expect(await stores.events.readStream('note-n1')).toHaveLength(1);
  });

  it('given a command the decider refuses, then the refusal reaches the caller and nothing is published', async () => {
    await expect(bus.execute(new WriteNote('', caller))).rejects.toMatchObject({ status: 400 });
    expect(heard).toEqual([]);
  });

  it('given a committed command, then each of its events is published on the EventBus', async () => {
    await bus.execute(new WriteNote('first', caller));
    expect(heard.map(({ stream, event }) => [stream, event.type])).toEqual([['note-n1', 'NoteWritten']]);
    expect(await runtime.metrics.registry.getSingleMetricAsString('eventstore_events_appended_total')).toMatch(
      /eventstore_events_appended_total 1$/m,
    );
  });
});
