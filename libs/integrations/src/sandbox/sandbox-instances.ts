/** The QuickJS WebAssembly instances runs use: each with its memory capped, the clean ones kept for later runs. */
import { dirname } from 'node:path';
import {
  newQuickJSWASMModuleFromVariant,
  newVariant,
  RELEASE_SYNC,
  type QuickJSSyncVariant,
  type QuickJSWASMModule,
} from 'quickjs-emscripten';

/** Raised by the guard on the host's allocations in an instance whose memory is exhausted. */
export class HeapExhausted extends Error {
  constructor() {
    super('out of memory');
    this.name = 'HeapExhausted';
  }
}

/** A host-level failure inside the WebAssembly instance: its state can no longer be trusted. */
export function isInstanceFault(error: unknown): boolean {
  if (error instanceof HeapExhausted || error instanceof RangeError) return true;
  // WebAssembly.RuntimeError (a trap, or an Emscripten abort) is named RuntimeError.
  return error instanceof Error && (error.name === 'RuntimeError' || /^Aborted\(/.test(error.message));
}

/**
 * The release build of the sync variant, its Emscripten loader required rather than imported: the
 * published variant loads it with a dynamic import(), which Jest's module system refuses.
 */
const BASE_VARIANT: QuickJSSyncVariant = {
  type: 'sync',
  importFFI: RELEASE_SYNC.importFFI,
  importModuleLoader: () => {
    const loader = require.resolve('@jitl/quickjs-wasmfile-release-sync/emscripten-module', {
      paths: [dirname(require.resolve('quickjs-emscripten'))],
    });
    return Promise.resolve(require(loader) as Awaited<ReturnType<QuickJSSyncVariant['importModuleLoader']>>);
  },
};

const WASM_PAGE_BYTES = 64 * 1024;
/** The prebuilt module's initial memory (its static data, stack and first heap): fixed by the build. */
const BASE_MEMORY_BYTES = 16 * 1024 * 1024;
const WasmMemory = (globalThis as unknown as { WebAssembly: { Memory: new (descriptor: { initial: number; maximum: number }) => object } })
  .WebAssembly.Memory;

/** A WebAssembly instance of QuickJS, used by one run at a time. */
export interface Instance {
  quickjs: QuickJSWASMModule;
  memoryBytes: number;
  /** False when the host's allocations could not be guarded: then the instance serves one run only. */
  reusable: boolean;
}

/** Instances whose run ended cleanly, kept for later runs with the same memory limit. */
const MAX_IDLE_INSTANCES = 2;
const idleInstances: Instance[] = [];

/**
 * An instance of its own for a run, its linear memory capped at the base plus the run's memory
 * limit: QuickJS's own limit (runtime.setMemoryLimit) only refuses single allocations over it in
 * this build (it cannot measure what it has allocated, quickjs-emscripten issues #255 and #271), so
 * the cap on the memory is what bounds the total; QuickJS then fails the allocation cleanly.
 */
export async function acquireInstance(memoryBytes: number): Promise<Instance> {
  const idle = idleInstances.findIndex((instance) => instance.memoryBytes === memoryBytes);
  if (idle >= 0) return idleInstances.splice(idle, 1)[0];
  const maximum = Math.ceil((BASE_MEMORY_BYTES + memoryBytes) / WASM_PAGE_BYTES);
  const variant = newVariant(BASE_VARIANT, {
    wasmMemory: () => new WasmMemory({ initial: BASE_MEMORY_BYTES / WASM_PAGE_BYTES, maximum }) as never,
  });
  const quickjs = await newQuickJSWASMModuleFromVariant(variant);
  return { quickjs, memoryBytes, reusable: guardHostAllocations(quickjs) };
}

/**
 * The library copies host strings into the instance with the Emscripten module's _malloc and does
 * not check for failure, so in an exhausted heap it would write at address 0. The guard turns that
 * into a HeapExhausted error (the run fails, the instance is dropped). Answers false when the
 * library's internals do not have the expected shape.
 */
function guardHostAllocations(quickjs: QuickJSWASMModule): boolean {
  const emscripten = (quickjs as unknown as { module?: { _malloc?: unknown } }).module;
  const malloc = emscripten?._malloc;
  if (emscripten === undefined || typeof malloc !== 'function') return false;
  emscripten._malloc = (bytes: number): number => {
    const pointer = (malloc as (bytes: number) => number).call(emscripten, bytes);
    if (!pointer) throw new HeapExhausted();
    return pointer;
  };
  return true;
}

export function releaseInstance(instance: Instance): void {
  if (!instance.reusable) return;
  idleInstances.push(instance);
  if (idleInstances.length > MAX_IDLE_INSTANCES) idleInstances.shift();
}
