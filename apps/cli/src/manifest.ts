import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { messageOf } from './cli';

/**
 * Reads the manifest `name` of a backup or an export in `directory` and checks its format and
 * version; throws an error saying what is wrong. The caller checks the fields of its own kind.
 */
export function readManifest<T extends { format?: unknown; version?: unknown }>(
  directory: string,
  name: string,
  kind: 'backup' | 'export',
  format: string,
  version: number,
): T {
  const path = join(directory, name);
  const article = kind === 'export' ? 'an' : 'a';
  if (!existsSync(path)) throw new Error(`no ${name} in ${directory}: not ${article} ${kind}, or an unfinished one`);
  let manifest: T;
  try {
    manifest = JSON.parse(readFileSync(path, 'utf8')) as T;
  } catch (error) {
    throw new Error(`${path} is not valid JSON: ${messageOf(error)}`);
  }
  if (manifest?.format !== format)
    throw new Error(`${path} is not ${article} ${kind} manifest (format ${JSON.stringify(manifest?.format)})`);
  if (manifest.version !== version)
    throw new Error(`${path} has format version ${String(manifest.version)}; this version reads ${version}`);
  return manifest;
}
