import 'reflect-metadata';
import { Inject, Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { checkBindings, PortBindingsModule, type ContextManifest, type PortBinding } from './context';

/** A consumer with a list-valued port and a single one, and two providers of the list. */
const SOURCES = Symbol('SOURCES');
const GREETER = Symbol('GREETER');

@Injectable()
class Consumer {
  constructor(
    @Inject(SOURCES) readonly sources: ReadonlyArray<{ name: string }>,
    @Inject(GREETER) readonly greeter: { name: string },
  ) {}
}
@Module({ providers: [Consumer], exports: [Consumer] })
class ConsumerModule {}

@Injectable()
class SourceA {
  readonly name = 'a';
}
@Module({ providers: [SourceA], exports: [SourceA] })
class AModule {}

@Injectable()
class SourceB {
  readonly name = 'b';
}
@Module({ providers: [SourceB], exports: [SourceB] })
class BModule {}

const consumer: ContextManifest = {
  name: 'consumer',
  module: ConsumerModule,
  projections: [],
  needs: [{ port: SOURCES, many: true }, GREETER],
};
const a: ContextManifest = { name: 'a', module: AModule, projections: [], provides: [SourceA] };
const b: ContextManifest = { name: 'b', module: BModule, projections: [], provides: [SourceB] };

describe('port bindings', () => {
  it('give a list-valued port every bound implementation, and a single port its one', async () => {
    const bindings: PortBinding[] = [
      { port: SOURCES, useAll: [SourceA, SourceB] },
      { port: GREETER, use: SourceB },
    ];
    checkBindings([consumer, a, b], bindings);
    const app = await NestFactory.createApplicationContext(PortBindingsModule.bind([consumer, a, b], bindings, { adminToken: 't' }), {
      logger: false,
    });
    try {
      const { sources, greeter } = app.get(Consumer, { strict: false });
      expect(sources.map((source) => source.name)).toEqual(['a', 'b']);
      expect(greeter).toBe(app.get(SourceB, { strict: false }));
    } finally {
      await app.close();
    }
  });

  it('accept an empty list', () => {
    expect(() =>
      checkBindings(
        [consumer],
        [
          { port: SOURCES, useAll: [] },
          { port: GREETER, value: () => ({ name: 'v' }) },
        ],
      ),
    ).not.toThrow();
  });

  it('refuse an unbound port, a list bound as one (or the reverse), a class no context provides, two bindings of a port', () => {
    expect(() => checkBindings([consumer, a], [{ port: SOURCES, useAll: [SourceA] }])).toThrow(
      "context 'consumer' needs port GREETER, which nothing binds",
    );
    expect(() =>
      checkBindings(
        [consumer, a],
        [
          { port: SOURCES, use: SourceA },
          { port: GREETER, use: SourceA },
        ],
      ),
    ).toThrow("context 'consumer' needs port SOURCES as a list");
    expect(() =>
      checkBindings(
        [consumer, a],
        [
          { port: SOURCES, useAll: [] },
          { port: GREETER, useAll: [SourceA] },
        ],
      ),
    ).toThrow("context 'consumer' needs port GREETER as one implementation");
    expect(() =>
      checkBindings(
        [consumer, a],
        [
          { port: SOURCES, useAll: [SourceB] },
          { port: GREETER, use: SourceA },
        ],
      ),
    ).toThrow('port SOURCES is bound to SourceB, which no context lists');
    expect(() =>
      checkBindings(
        [consumer, a],
        [
          { port: SOURCES, useAll: [] },
          { port: SOURCES, useAll: [] },
        ],
      ),
    ).toThrow('port SOURCES is bound twice');
    expect(() => checkBindings([a, a], [])).toThrow("two contexts are named 'a'");
  });

  it('refuse a port the service itself needs when nothing binds it', () => {
    expect(() => checkBindings([], [], [GREETER])).toThrow('the service itself needs port GREETER, which nothing binds');
  });
});
